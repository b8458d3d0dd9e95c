/**
 * The socket kit's front door: a socket is declared once — path, who may open it (`access`: the
 * member check of an access token in `?token=`, as REST's, then the socket's own `admit`; all run
 * before the upgrade so a refusal is a real HTTP 401/403/429), its admission limits, its
 * messages with their handlers, its rate limit and keepalive — and `registerSockets` turns the
 * declarations into Fastify routes with what the composition root gives it (`SocketKit`). Several
 * sockets may share a path, told apart by `?type=` (the car and the controller on /rcsocket). See
 * docs/architecture.md "Adding a socket".
 */
import { CONTROL_LIMITS } from '@telerace/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Clock } from '../clock.js';
import {
  type Authenticator,
  assertRegistrationComplete,
  type Member,
  unauthorized,
} from '../http/authenticate.js';
import { HttpError } from '../http/errors.js';
import type { MemberSockets } from './member-sockets.js';
import type { DropCounters } from './message-guard.js';
import type { MessageTable } from './message-table.js';
import type { SocketAdmission, SocketKind } from './socket-admission.js';
import { assertOwnOrigin, queryOf } from './socket-auth.js';
import { type Keepalive, SocketConnection } from './socket-connection.js';
import type { SocketMeter, SocketTraffic } from './socket-meter.js';
import type { TokenCheck } from './socket-token.js';

/** What the kit is given by the composition root (app.ts): it looks nothing up. */
export interface SocketKit {
  /** The only Origin a browser socket may come from (PUBLIC_URL's). */
  publicUrl: string;
  /** Who the access token of a member's socket belongs to. */
  authenticator: Authenticator;
  /** The places per address and per member (SOCKETS_PER_IP, `limits.perMember`). */
  places: SocketAdmission;
  /** Every member's open sockets: a member's socket is closed by revocations from its admission on. */
  memberSockets: MemberSockets;
  /** The sockets' counts per kind (GET /metrics). */
  meter: SocketMeter;
  /** What the sockets' keepalive counts time with (BuildAppOptions.keepaliveClock). */
  keepaliveClock: Clock;
}

/**
 * Who may open a socket, as REST's `config.access`: `member` (an access token in `?token=` of a
 * member not banned who accepted the terms) or `member-before-terms` (the terms not needed yet:
 * such a member may watch, not act) — checked by the kit, which hands the member to `admit` —
 * or `custom`: `admit` alone says (the car agent's secret).
 */
type AccessOf<A> =
  | {
      access: 'member' | 'member-before-terms';
      /** What the socket checks past the member check; throws an HttpError to refuse. */
      admit(request: FastifyRequest, member: Member): Promise<A>;
    }
  | {
      access: 'custom';
      /** Authentication and authorization; throws an HttpError to refuse. */
      admit(request: FastifyRequest): Promise<A>;
    };

/** Who may open a socket, and how many. */
export type Admission<A> = AdmissionCommon<A> & AccessOf<A>;

/** What every socket declares, whoever may open it. */
interface AdmissionCommon<A> {
  /** For logs and GET /metrics: `car`, `controller`, `event`, `video`. */
  name: string;
  path: string;
  /** On a shared path: the `type` query value that selects this socket. */
  queryType?: string;
  /** Browser sockets: the Origin must be PUBLIC_URL's (no cross-site WebSocket hijacking). */
  ownOrigin: boolean;
  /**
   * `perAddress`: counts against SOCKETS_PER_IP (taken before `admit`, so a flood costs no
   * database work past the cap). `perMember`: at most `max` sockets of this kind per member; it
   * makes the socket a member's, closed by revocations from the start of its admission
   * (member-sockets.ts).
   */
  limits: {
    perAddress: boolean;
    perMember?: { kind: SocketKind; max: number; memberOf(admitted: A): number };
  };
}

/** A socket route as registerSockets takes it (admitted values are the route's own business). */
export interface SocketRoute {
  readonly admission: Admission<unknown>;
  /** The kit's drop counters of this socket (GET /metrics reads them); none for a raw socket. */
  readonly dropped: DropCounters | null;
  /** `traffic`: this kind's counts, bumped per message (sockets/socket-meter.ts). */
  connect(
    socket: WebSocket,
    admitted: unknown,
    request: FastifyRequest,
    traffic: SocketTraffic,
    kit: SocketKit,
  ): void;
}

export type SocketDefinition<A, C> = Admission<A> & SocketMessages<A, C>;

interface SocketMessages<A, C> {
  /**
   * The socket's context (its link) once open: handlers receive it. A member's socket (one with
   * `limits.perMember`) registers here with its kind's MemberSocketsOfKind and this `request`.
   * `renewal`: the admission's own member check, for a newer token sent on the open socket
   * (`auth {token}`, socket-token.ts); a `custom` socket has no token and refuses any.
   */
  open(connection: SocketConnection, admitted: A, request: FastifyRequest, renewal: TokenCheck): C;
  messages: MessageTable<C>;
  /** Default CONTROL_LIMITS.maxMessagesPerSecond. */
  maxMessagesPerSecond?: number;
  keepalive: Keepalive;
  /** Where dropped messages are counted (tests and logs read them). */
  dropped: DropCounters;
}

/** A JSON socket: admission, then the kit's message loop. */
export function defineSocket<A, C>(definition: SocketDefinition<A, C>): SocketRoute {
  return {
    admission: definition as Admission<unknown>,
    dropped: definition.dropped,
    connect(socket, admitted, request, traffic, kit) {
      const access = definition.access;
      const renewal: TokenCheck =
        access === 'custom'
          ? async () => Promise.reject(unauthorized())
          : (token) => memberOf(kit, access, token);
      const connection = new SocketConnection(socket, {
        name: definition.name,
        keepalive: definition.keepalive,
        clock: kit.keepaliveClock,
        maxMessagesPerSecond: definition.maxMessagesPerSecond ?? CONTROL_LIMITS.maxMessagesPerSecond,
        dropped: definition.dropped,
        traffic,
        log: request.log,
      });
      connection.listen(definition.messages, definition.open(connection, admitted as A, request, renewal));
    },
  };
}

/** A socket that only takes the kit's admission and runs its own messages (the /janus proxy). */
export function defineRawSocket<A>(
  admission: Admission<A>,
  connect: (socket: WebSocket, admitted: A, request: FastifyRequest) => void,
): SocketRoute {
  return {
    admission: admission as Admission<unknown>,
    dropped: null,
    connect(socket, admitted, request, traffic) {
      // Messages in only: what goes out is the proxy's own business (it forwards Janus's answers).
      socket.on('message', () => {
        traffic.received += 1;
      });
      connect(socket, admitted as A, request);
    },
  };
}

/**
 * A member's socket: from here on a revocation reaches it, even one made before it registers
 * (sockets/member-sockets.ts). The window ends when the socket registers, or with the upgrade's
 * connection when it never does (refused, dropped).
 */
function openAdmissionWindow(members: MemberSockets, request: FastifyRequest): void {
  members.admitting(request);
  const connection = request.raw.socket;
  if (connection.destroyed) members.abandoned(request);
  else connection.once('close', () => members.abandoned(request));
}

/** The declared member check of an access token (`?token=`, or a renewal's): the terms for `member`. */
async function memberOf(kit: SocketKit, access: 'member' | 'member-before-terms', token: string | null) {
  // Refuses banned and deleted members and tokens issued before a password change.
  const member = await kit.authenticator.member(token);
  if (access === 'member') assertRegistrationComplete(member.user);
  return member;
}

async function admit(kit: SocketKit, admission: Admission<unknown>, request: FastifyRequest) {
  if (admission.ownOrigin) assertOwnOrigin(request, kit.publicUrl);
  const perMember = admission.limits.perMember;
  // Before every step that waits (a shared place, the token's database read).
  if (perMember && request.ws) openAdmissionWindow(kit.memberSockets, request);
  try {
    if (admission.limits.perAddress) await kit.places.admitAddress(request);
    const admitted =
      admission.access === 'custom'
        ? await admission.admit(request)
        : await admission.admit(
            request,
            await memberOf(kit, admission.access, queryOf(request).token ?? null),
          );
    if (perMember)
      await kit.places.admitMember(request, perMember.kind, perMember.memberOf(admitted), perMember.max);
    return admitted;
  } catch (error) {
    kit.memberSockets.abandoned(request);
    throw error;
  }
}

/** Registers the routes, one per path; sockets sharing a path are chosen by `?type=`. */
export function registerSockets(app: FastifyInstance, routes: readonly SocketRoute[], kit: SocketKit): void {
  const byPath = new Map<string, SocketRoute[]>();
  const trafficOf = new Map<SocketRoute, SocketTraffic>();
  for (const route of routes) {
    byPath.set(route.admission.path, [...(byPath.get(route.admission.path) ?? []), route]);
    trafficOf.set(route, kit.meter.kind(route.admission.name, route.dropped));
  }
  for (const [path, shared] of byPath) {
    const admitted = new WeakMap<FastifyRequest, { route: SocketRoute; value: unknown }>();
    const select = (request: FastifyRequest): SocketRoute => {
      const only = shared[0];
      if (shared.length === 1 && only && only.admission.queryType === undefined) return only;
      const type = queryOf(request).type;
      const route = shared.find((candidate) => candidate.admission.queryType === type);
      if (!route) {
        const types = shared.map((candidate) => candidate.admission.queryType).join(' or ');
        throw new HttpError(400, `query.type: must be ${types}`);
      }
      return route;
    };
    app.get(
      path,
      {
        websocket: true,
        schema: { hide: true },
        preValidation: async (request) => {
          const route = select(request);
          admitted.set(request, { route, value: await admit(kit, route.admission, request) });
        },
      },
      (socket, request) => {
        const entry = admitted.get(request);
        const traffic = entry && trafficOf.get(entry.route);
        if (!entry || !traffic) {
          socket.close(1011, 'not admitted');
          return;
        }
        traffic.open += 1;
        socket.once('close', () => {
          traffic.open -= 1;
        });
        entry.route.connect(socket, entry.value, request, traffic, kit);
      },
    );
  }
}
