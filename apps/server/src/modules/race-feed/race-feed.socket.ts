/**
 * The event socket /api/race-ws (registered outside the /api rate limiter): a few per member,
 * kept in the member-sockets registry (sockets/member-sockets.ts), which closes all of a member's
 * sockets when their sessions are revoked (ban, deletion, password change, log-out everywhere;
 * `force_disconnect` first) or the sockets of one session at its log-out. It answers
 * `get_current_state` and `ping` and tells a driver why their car session ended
 * (`car_session_ended`; `force_disconnect` to a page of browser protocol 1). A socket lives as long as its access token, renewed with `auth {token}`
 * (sockets/socket-token.ts); a client address holds a few at most too. Declared with the
 * socket kit (sockets/define-socket.ts); the page's `hello` says its protocol version
 * (sockets/browser-hello.ts). The race: its commands (`join_lobby`, `leave_lobby`, `toggle_ready`,
 * `ping_update`: modules/races/race-commands.ts) go to the race, each through the member's command
 * budget and the registration check (command-gate.ts); every `race.changed` is broadcast as
 * `race_state_update` and every counted lap as `live_leaderboard_update` (race-feed.module.ts);
 * `get_current_state` is answered from the race's memory.
 */
import {
  type CarSessionEndReason,
  CONTROL_LIMITS,
  EventClientMessage,
  type EventServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { AccessTokenClaims } from '../../http/authenticate.js';
import type { Services } from '../../module.js';
import type { LimitStores } from '../../scale-out/limit-stores.js';
import { Broadcaster } from '../../sockets/broadcaster.js';
import { answerBrowserHello } from '../../sockets/browser-hello.js';
import { defineSocket, type SocketRoute } from '../../sockets/define-socket.js';
import type { MemberSocket, MemberSocketsOfKind, Revocation } from '../../sockets/member-sockets.js';
import { newDropCounters } from '../../sockets/message-guard.js';
import { messageTable } from '../../sockets/message-table.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import { SocketToken, type TokenCheck } from '../../sockets/socket-token.js';
import { raceSocketCommands } from '../races/race-commands.js';
import { EventCommandGate } from './command-gate.js';

/** Protocol pings keep proxies from closing idle sockets and find dead peers. */
export const EVENT_KEEPALIVE = { pingMs: 15_000, silenceMs: 20_000 };

/** One open event socket: the kit's connection and the token it lives on. */
export class RaceFeedLink implements MemberSocket {
  readonly token: SocketToken;
  /** The page's protocol, from its `hello` (a page that never says it speaks version 1). */
  protocolVersion = 1;

  constructor(
    readonly userId: number,
    readonly connection: SocketConnection,
    claims: AccessTokenClaims,
    clock: Clock,
    /** The admission's member check, for a renewal (`auth {token}`). */
    readonly renewal: TokenCheck,
  ) {
    this.token = new SocketToken(claims, clock, () =>
      connection.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired'),
    );
  }

  get loginSessionId(): string | null {
    return this.token.sessionId;
  }

  /** Every session ended: `force_disconnect {reason}` first, so the page says why. */
  revoke(revocation: Revocation): void {
    if (revocation.code === SOCKET_CLOSE_CODES.forceDisconnect)
      this.connection.send({
        type: 'force_disconnect',
        reason: revocation.reason,
      } satisfies EventServerMessage);
    this.connection.close(revocation.code, revocation.reason);
  }
}

/** The open event sockets (kept in the member-sockets registry, which closes them on revocations). */
export class RaceFeedSockets {
  readonly dropped = newDropCounters();
  readonly #broadcaster = new Broadcaster(() => this.#connections());

  readonly #sockets: MemberSocketsOfKind<RaceFeedLink>;

  constructor(sockets: MemberSocketsOfKind<RaceFeedLink>) {
    this.#sockets = sockets;
  }

  /** A socket admitted by this upgrade request opens; returns its removal. */
  add(request: FastifyRequest, link: RaceFeedLink): () => void {
    return this.#sockets.add(request, link);
  }

  /**
   * Sends one message to every open event socket: serialized once, written a chunk of sockets per
   * turn of the event loop so the relay is never held, a newer message of the same type replacing
   * one still waiting (sockets/broadcaster.ts). A slow reader is dropped.
   */
  broadcast(message: EventServerMessage): void {
    this.#broadcaster.send(message.type, message);
  }

  *#connections(): Iterable<SocketConnection> {
    for (const { connection } of this.#sockets.all()) yield connection;
  }

  /** Sends to every socket of the member (a slow reader among them is dropped). */
  sendToUser(userId: number, message: EventServerMessage): void {
    for (const { connection } of this.#sockets.of(userId)) connection.send(message);
  }

  /**
   * The member's driving session ended: `car_session_ended {reason}`, or to a page of protocol 1
   * the name it knows, `force_disconnect` (its socket stays open all the same).
   */
  tellCarSessionEnded(userId: number, reason: CarSessionEndReason): void {
    for (const link of this.#sockets.of(userId))
      link.connection.send(
        link.protocolVersion >= 2
          ? ({ type: 'car_session_ended', reason } satisfies EventServerMessage)
          : ({ type: 'force_disconnect', reason } satisfies EventServerMessage),
      );
  }

  count(userId: number): number {
    return this.#sockets.count(userId);
  }

  closeAll(): void {
    for (const { connection } of this.#sockets.all()) connection.close(1001, '');
  }
}

/** What the event socket is given (race-feed.module.ts). */
type EventDeps = Pick<Services, 'raceFeedSockets' | 'race' | 'userCache'> & {
  clock: Clock;
  limitStores: LimitStores;
};

export function raceFeedSocket({
  raceFeedSockets: sockets,
  race,
  userCache,
  clock,
  limitStores,
}: EventDeps): SocketRoute {
  const gate = new EventCommandGate(
    limitStores.window<number>(
      'event-commands',
      CONTROL_LIMITS.eventCommandsPerMember,
      CONTROL_LIMITS.eventCommandWindowMs,
    ),
    userCache,
  );
  const send = (link: RaceFeedLink, message: EventServerMessage) => link.connection.send(message);
  // Each race command runs once the gate lets the member act (its refusal is the socket's `error`).
  const raceCommands = raceSocketCommands<RaceFeedLink>(race, {
    admit: (link) => gate.admit(link.userId),
    answer: send,
  });
  return defineSocket({
    name: 'event',
    path: '/api/race-ws',
    ownOrigin: true,
    // Members who have not accepted the terms yet may watch; the commands check (command-gate.ts).
    access: 'member-before-terms',
    limits: {
      perAddress: true,
      perMember: {
        kind: 'event',
        max: CONTROL_LIMITS.eventSocketsPerMember,
        memberOf: (claims: AccessTokenClaims) => claims.userId,
      },
    },
    admit: async (_request, { claims }) => claims,
    open: (connection, claims, request, renewal) => {
      const link = new RaceFeedLink(claims.userId, connection, claims, clock, renewal);
      const remove = sockets.add(request, link);
      connection.onClose(() => {
        link.token.stop();
        remove();
      });
      return link;
    },
    messages: messageTable<RaceFeedLink, EventClientMessage>(EventClientMessage, {
      hello: (link, { protocolVersion }) => {
        link.protocolVersion = protocolVersion;
        answerBrowserHello(link.connection, protocolVersion);
      },
      get_current_state: (link) => {
        const state = race.state();
        send(link, { type: 'race_state_update', payload: state });
        if (state.race_status === 'active')
          send(link, { type: 'live_leaderboard_update', data: race.leaderboard() });
      },
      ping: (link, { timestamp }) => send(link, { type: 'pong', timestamp }),
      ...raceCommands,
      auth: async (link, { token }) => {
        const user = await link.token.renew(token, link.renewal);
        if (user) send(link, { type: 'auth_ok', expiresAt: link.token.expiresAt.toISOString() });
        else link.connection.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token refused');
      },
    }),
    keepalive: EVENT_KEEPALIVE,
    dropped: sockets.dropped,
  });
}
