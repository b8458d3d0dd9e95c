/**
 * The authorization matrix (authorization-matrix.ts) played cell by cell against one real server
 * with its own Janus: every operation of the served OpenAPI document over REST, every message of
 * the event, controller and car sockets over real WebSockets, every Janus request through /janus,
 * as each actor. The operations and message types come from /api/openapi.json and the protocol's
 * unions: one the table does not name, or one it names that is gone, fails the first test.
 *
 * Nothing is changed by a cell: REST calls an actor is let through carry invalid input (a 400 is
 * "let through") except reads, which are valid. The actors are made the way they happen: the
 * banned member and the demoted admin used their tokens (and opened sockets) before an admin
 * banned or demoted them through the API, and keep using the same tokens after.
 */
import { randomUUID } from 'node:crypto';
import {
  BROWSER_PROTOCOL_VERSION,
  CAR_PROTOCOL_VERSION,
  CarAgentMessage,
  ControllerMessage,
  EventClientMessage,
} from '@telerace/protocol';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { z } from 'zod';
import type { UserRow } from '../kernel/users.repo.js';
import { driveChannelThread } from '../modules/control/drive-channel-thread.js';
import { STREAMING_PLUGIN } from '../modules/video/janus-client.js';
import type { StartedTestApp } from '../test/app.js';
import { SAMPLE_DRIVE_OFFER } from '../test/drive-channel-client.js';
import { buildAdmin, buildUser, tokenFor } from '../test/factories.js';
import {
  connectCar,
  createCar,
  type Driving,
  eventsUrl,
  openSocket,
  originOf,
  type TestSocket,
  takeCar,
  upgradeRefusal,
} from '../test/sockets.js';
import { openJanusSocket, startOwnJanusTestApp, streamingHandle } from '../test/video.js';
import {
  ACTORS,
  type Actor,
  CAR_SOCKET,
  CONTROLLER_SOCKET,
  EVENT_SOCKET,
  JANUS_CORE_REQUESTS,
  JANUS_SOCKET,
  type OpenOutcome,
  REST,
  type Row,
  SOCKETS_HELD_ACROSS_THE_CHANGE,
  type SocketTable,
  STREAMING_PLUGIN_REQUESTS,
} from './authorization-matrix.js';

type Json = Record<string, unknown> & { type?: string };
type OpenApi = { paths: Record<string, Record<string, unknown>> };

const outcomeOf = <O extends string>(row: Row<O>, actor: Actor): O => row[actor] ?? row.rest;

/** The message types of a protocol union, as its schemas spell them. */
const typesOf = (union: z.ZodDiscriminatedUnion): string[] =>
  union.options.flatMap((option) => [
    ...((option as z.ZodObject).shape as { type: z.ZodLiteral<string> }).type.values,
  ]);

/** Refusals by status and errorKey, as the table writes them (REST and socket upgrades alike). */
const REFUSALS: Record<string, OpenOutcome> = {
  '401 errors.unauthorized': '401',
  '401 errors.banned': '401 banned',
  '403 errors.forbidden': '403',
  '403 errors.registrationIncomplete': '403 registrationIncomplete',
};

/** A socket error as the table writes it: `error notInLobby`. */
const socketError = (message: Json): string =>
  message.type === 'incompatible'
    ? 'incompatible'
    : `error ${String(message.errorKey).replace(/^errors\./, '')}`;

/** Cells that did not answer as the table says, one line each, so a failure lists them all. */
class Mismatches {
  readonly lines: string[] = [];
  cells = 0;

  check(what: string, actor: Actor, expected: string, got: string): void {
    this.cells += 1;
    if (got !== expected) this.lines.push(`${what} as ${actor}: expected ${expected}, got ${got}`);
  }
}

/**
 * The first message from index `from` on that matches, or null once the socket closed or 5 s
 * passed without one (a cell that never answers).
 */
function firstFrom(socket: TestSocket, from: number, predicate: (m: Json) => boolean): Promise<Json | null> {
  const found = () => (socket.messages.slice(from).find(predicate) as Json | undefined) ?? null;
  const now = found();
  if (now || socket.ws.readyState === WebSocket.CLOSED) return Promise.resolve(now);
  return new Promise((resolve) => {
    const finish = (message: Json | null) => {
      clearTimeout(timer);
      socket.ws.off('message', onMessage);
      socket.ws.off('close', onClose);
      resolve(message);
    };
    // Registered after TestSocket's own listener: the message is in `socket.messages` already.
    const onMessage = () => {
      const message = found();
      if (message) finish(message);
    };
    const onClose = () => finish(found());
    const timer = setTimeout(() => finish(null), 5_000);
    socket.ws.on('message', onMessage);
    socket.ws.on('close', onClose);
  });
}

/** What a socket that gave no answer did: closed (with its code), or nothing. */
async function silence(socket: TestSocket): Promise<string> {
  if (socket.ws.readyState !== WebSocket.CLOSED) return 'no answer';
  return `closed ${(await socket.closed).code}`;
}

/**
 * Sends `message` and reads its outcome: `ok` when an answer matches `accepted` (or, for a message
 * whose effect shows on another socket, `elsewhere` sees it), else the socket's error, or its close.
 */
async function answer(
  socket: TestSocket,
  message: object,
  accepted: (m: Json) => boolean,
  elsewhere?: { socket: TestSocket; accepted: (m: Json) => boolean },
): Promise<string> {
  const from = socket.messages.length;
  const elsewhereFrom = elsewhere?.socket.messages.length ?? 0;
  socket.send(message);
  const decisive = (m: Json) => accepted(m) || m.type === 'error' || m.type === 'incompatible';
  const seen = await Promise.race([
    firstFrom(socket, from, decisive),
    ...(elsewhere
      ? [
          firstFrom(elsewhere.socket, elsewhereFrom, elsewhere.accepted).then((m) =>
            m ? { accepted: true } : null,
          ),
        ]
      : []),
  ]);
  if (!seen) return silence(socket);
  return 'accepted' in seen || accepted(seen) ? 'ok' : socketError(seen);
}

/** Any message of an unknown type: every JSON socket answers it at once with an error. */
const BARRIER = { type: 'authorization-matrix-barrier' };
const isBarrierAnswer = (m: Json) => m.type === 'error' && m.error === 'Unknown message type';

/**
 * Sends a message that has no answer when accepted, and reads its outcome: its error, if any,
 * arrives before the answer to the second of two barriers sent one after the other (what the
 * server does for a message without waiting on I/O is written before it reads the next frame).
 */
async function quietAnswer(socket: TestSocket, message: object): Promise<string> {
  const from = socket.messages.length;
  socket.send(message);
  for (let round = 0; round < 2; round += 1) {
    const at = socket.messages.length;
    socket.send(BARRIER);
    if (!(await firstFrom(socket, at, isBarrierAnswer))) return silence(socket);
  }
  const refusal = socket.messages
    .slice(from)
    .find((m) => (m.type === 'error' && !isBarrierAnswer(m)) || m.type === 'incompatible');
  return refusal ? socketError(refusal) : 'ok';
}

/** The Authorization header of a token, or none. */
const bearer = (token: string | null): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

/** A car's video PIN as GET /api/cars/{id}/status shows it to the caller. */
function pinOf(response: LightMyRequestResponse): string | null {
  return (response.json() as { video?: { pin?: string | null } }).video?.pin ?? null;
}

describe('the authorization matrix: every operation and message, as every actor', () => {
  let testApp: StartedTestApp;
  let app: FastifyInstance;
  let host: string;
  let driving: Driving;
  let streamId: number;
  /** The car's socket from the setup: it receives the holder's drives. */
  let carSocket: TestSocket;
  const users = {} as Record<Exclude<Actor, 'anonymous' | 'car'>, UserRow>;
  /** What each actor presents as its access token (the car: its secret; anonymous: nothing). */
  const tokens = {} as Record<Actor, string | null>;
  /** The holder's control token for the car (the `connect` answer). */
  let controlToken: string;
  /** The video PIN each actor was shown: the demoted admin's while still an admin. */
  const pins: Partial<Record<Actor, string>> = {};
  /** A second member with registration incomplete, for the one call that would complete the first's. */
  let disposableIncompleteToken: string;
  /** The holder watching on a Janus session and handle of their own (`other` tries to use them). */
  let holderPlayer: { session: number; handle: number };
  const heldSockets = {} as Record<'banned' | 'demoted', Record<'event' | 'janus', TestSocket>>;
  /** The holder's control socket, kept open for the car's telemetry. */
  let holderController: TestSocket | undefined;

  /** REST calls each from an address of its own: the API's per-address budget is not this test's subject. */
  const addressOf = (actor: Actor) => `10.77.0.${ACTORS.indexOf(actor) + 1}`;

  const adminCall = (method: 'GET' | 'POST', url: string, token: string | null, payload?: object) =>
    app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    ({ testApp, host } = await startOwnJanusTestApp());
    app = testApp.app;
    const db = app.database.db;

    driving = await createCar(app, 'Matrix car');
    carSocket = await connectCar(host, driving.carId, driving.secret);
    const taken = await takeCar(app, driving);
    // The car is told where to stream once its mountpoint exists: the PINs are real from here on.
    await carSocket.nextOfType('video', 10_000);
    controlToken = taken.controlToken;

    users.admin = driving.admin;
    users.holder = taken.driver;
    users.member = await buildUser(db);
    users.other = await buildUser(db);
    users.banned = await buildUser(db);
    users.demoted = await buildAdmin(db);
    users.incomplete = await buildUser(db, { termsAcceptedAt: null, password: null });
    const disposable = await buildUser(db, { termsAcceptedAt: null, password: null });
    disposableIncompleteToken = await tokenFor(app, disposable);
    tokens.anonymous = null;
    tokens.car = driving.secret;
    for (const actor of Object.keys(users) as (keyof typeof users)[])
      tokens[actor] = await tokenFor(app, users[actor]);

    // Before the change: the banned member reads /me, the demoted admin reads the settings and the
    // car's PIN, and both open an event socket and a video socket.
    const before = async (actor: 'banned' | 'demoted', url: string) => {
      const read = await adminCall('GET', url, tokens[actor]);
      expect(read.statusCode, read.body).toBe(200);
      heldSockets[actor] = {
        event: await openSocket(eventsUrl(host, tokens[actor] ?? ''), originOf(app)),
        janus: await openJanusSocket(app, host, tokens[actor] ?? ''),
      };
    };
    await before('banned', '/api/me');
    await before('demoted', '/api/admin/settings');
    const stale = pinOf(await adminCall('GET', `/api/cars/${driving.carId}/status`, tokens.demoted));
    expect(stale).not.toBeNull();
    pins.demoted = stale ?? '';

    const banned = await adminCall('POST', `/api/admin/users/${users.banned.id}/ban`, tokens.admin, {
      ban: true,
    });
    expect(banned.statusCode, banned.body).toBe(200);
    const demoted = await adminCall(
      'POST',
      `/api/admin/users/${users.demoted.id}/toggle-admin`,
      tokens.admin,
      { makeAdmin: false },
    );
    expect(demoted.statusCode, demoted.body).toBe(200);
    // Every PIN is replaced when an admin loses the role: wait until Janus has the car's new one.
    await vi.waitFor(
      () => expect(testApp.logLines().some((line) => line.msg === 'new PIN, viewers evicted')).toBe(true),
      { timeout: 10_000, interval: 20 },
    );

    for (const actor of ['holder', 'admin'] as const) {
      const status = await adminCall('GET', `/api/cars/${driving.carId}/status`, tokens[actor]);
      streamId = (status.json() as { stream_id: number }).stream_id;
      const pin = pinOf(status);
      expect(pin).not.toBeNull();
      expect(pin).not.toBe(pins.demoted);
      pins[actor] = pin ?? '';
    }

    holderPlayer = await streamingHandle(await openJanusSocket(app, host, tokens.holder ?? ''));
  }, 60_000);
  afterAll(() => testApp?.close());

  it('names every operation of the API reference and every socket message, and nothing else', async () => {
    const document = (await app.inject('/api/openapi.json')).json() as OpenApi;
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(50);
    expect(Object.keys(REST).sort()).toEqual(operations.sort());

    const sockets: [string, SocketTable<string>, z.ZodDiscriminatedUnion][] = [
      ['event', EVENT_SOCKET, EventClientMessage],
      ['controller', CONTROLLER_SOCKET, ControllerMessage],
      ['car', CAR_SOCKET, CarAgentMessage],
    ];
    for (const [name, table, union] of sockets) {
      expect(Object.keys(table.messages).sort(), name).toEqual(typesOf(union).sort());
    }
    const janusKeys = [
      ...JANUS_CORE_REQUESTS.filter((request) => request !== 'attach' && request !== 'message'),
      'attach streaming',
      'attach videoroom',
      ...STREAMING_PLUGIN_REQUESTS.map((request) => `message ${request}`),
    ];
    expect(Object.keys(JANUS_SOCKET.requests).sort()).toEqual(janusKeys.sort());

    // A message row speaks only for the actors its socket lets in: a refused one has nothing to send on.
    const tables: [string, Row<OpenOutcome>, Record<string, Row<string>>][] = [
      ...sockets.map(
        ([name, table]) =>
          [name, table.open, table.messages] as [string, Row<OpenOutcome>, Record<string, Row<string>>],
      ),
      ['janus', JANUS_SOCKET.open, JANUS_SOCKET.requests],
    ];
    for (const [name, open, messages] of tables) {
      const refused = ACTORS.filter((actor) => outcomeOf(open, actor) !== 'open');
      for (const [type, row] of Object.entries(messages)) {
        expect(
          refused.filter((actor) => actor in row),
          `${name} ${type}`,
        ).toEqual([]);
      }
    }
  });

  // ── REST ───────────────────────────────────────────────────────────────────────────────────

  const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
  const PIN_OPERATION = 'GET /api/cars/{id}/status';

  /**
   * The operation's URL: a read with valid parameters (the car's id on car routes), anything else
   * with every part invalid, as route-access.test.ts sends it.
   */
  const urlOf = (method: string, path: string): string =>
    method === 'GET'
      ? path
          .replace('{id}', path.startsWith('/api/cars/') ? String(driving.carId) : '1')
          .replace('{season}', '0')
          .replace('{platform}', 'twitch')
      : `${path.replace(/\{[^}]+\}/g, 'not-an-id')}?page=nope&limit=nope&season=nope`;

  function call(operation: string, actor: Actor): Promise<LightMyRequestResponse> {
    const [method = '', path = ''] = operation.split(' ');
    // Completing the registration would change the incomplete member for every later cell.
    const token =
      operation === 'POST /api/auth/complete-registration' && actor === 'incomplete'
        ? disposableIncompleteToken
        : tokens[actor];
    const body = BODY_METHODS.has(method);
    return app.inject({
      method: method as 'GET',
      url: urlOf(method, path),
      remoteAddress: addressOf(actor),
      headers: {
        ...bearer(token),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { payload: '[1]' } : {}),
    });
  }

  /** `401 errors.unauthorized`: what the answer says, for comparing and for failure lines. */
  const answerOf = (response: LightMyRequestResponse): string => {
    const json = String(response.headers['content-type']).startsWith('application/json');
    const errorKey = json ? (response.json() as { errorKey?: string }).errorKey : undefined;
    return `${response.statusCode} ${errorKey ?? ''}`.trim();
  };

  function httpOutcome(operation: string, response: LightMyRequestResponse): string {
    const said = answerOf(response);
    const refusal = REFUSALS[said];
    if (refusal) return refusal;
    const status = response.statusCode;
    if (status === 401 || status === 403 || status === 429 || status >= 500) return said;
    if (operation === PIN_OPERATION && status === 200)
      return pinOf(response) === null ? 'ok, no PIN' : 'ok, PIN shown';
    return 'ok';
  }

  /** An open route answers everyone as it answers nobody in particular. */
  function publicOutcome(response: LightMyRequestResponse, anonymous: string): string {
    const said = answerOf(response);
    if (response.statusCode === 429 || response.statusCode >= 500) return said;
    return said === anonymous ? 'public' : `${said} (anonymous: ${anonymous})`;
  }

  it('REST: every operation of the API reference, as every actor', async () => {
    const found = new Mismatches();
    for (const [operation, row] of Object.entries(REST)) {
      const answers = await Promise.all(ACTORS.map((actor) => call(operation, actor)));
      const anonymous = answerOf(answers[0] as LightMyRequestResponse);
      ACTORS.forEach((actor, index) => {
        const response = answers[index] as LightMyRequestResponse;
        const expected = outcomeOf(row, actor);
        const got =
          expected === 'public' ? publicOutcome(response, anonymous) : httpOutcome(operation, response);
        found.check(operation, actor, expected, got);
      });
    }
    expect(found.cells).toBe(Object.keys(REST).length * ACTORS.length);
    expect(found.lines).toEqual([]);
  });

  // ── Sockets ────────────────────────────────────────────────────────────────────────────────

  /** Opens the socket as the table expects it: a real socket when it should open, else the refusal. */
  async function open(
    expected: OpenOutcome,
    url: string,
    headers: Record<string, string>,
    connect: () => Promise<TestSocket>,
  ): Promise<{ outcome: string; socket?: TestSocket }> {
    if (expected === 'open') {
      try {
        return { outcome: 'open', socket: await connect() };
      } catch (error) {
        return { outcome: `refused ${(error as { status?: number }).status}` };
      }
    }
    try {
      const { status, body } = await upgradeRefusal(url, originOf(app).origin, headers);
      const said = `${status} ${(body as { errorKey?: string }).errorKey}`;
      return { outcome: REFUSALS[said] ?? said };
    } catch (error) {
      if ((error as Error).message !== 'the upgrade was accepted') throw error;
      return { outcome: 'open' };
    }
  }

  type Probe = (socket: TestSocket, actor: Actor) => Promise<string>;

  /** Plays a socket's table: each actor opens it, then sends each message type in the table's order. */
  async function playSocket<T extends string>(
    name: string,
    table: SocketTable<T>,
    probes: Record<T, Probe>,
    openAs: (actor: Actor) => { url: string; headers: Record<string, string> },
    { keepOpen }: { keepOpen?: Actor } = {},
  ): Promise<{ found: Mismatches; kept?: TestSocket }> {
    const found = new Mismatches();
    let kept: TestSocket | undefined;
    for (const actor of ACTORS) {
      const expected = outcomeOf(table.open, actor);
      const { url, headers } = openAs(actor);
      const opened = await open(expected, url, headers, () => openSocket(url, headers));
      found.check(`${name} socket: open`, actor, expected, opened.outcome);
      const socket = opened.socket;
      if (!socket) continue;
      for (const type of Object.keys(table.messages) as T[]) {
        const got = await probes[type](socket, actor);
        found.check(`${name} socket: ${type}`, actor, outcomeOf(table.messages[type], actor), got);
      }
      if (actor === keepOpen) kept = socket;
      else await socket.close();
    }
    return { found, kept };
  }

  /** A browser socket's URL with the actor's token in its query (none for anonymous), from our own origin. */
  const browser = (path: string, actor: Actor) => {
    const token = tokens[actor];
    const query = token ? `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : '';
    return { url: `ws://${host}${path}${query}`, headers: originOf(app) };
  };

  /** A newer access token of the actor's own (`other`: the holder's) for `auth`. */
  const renewalOf = async (actor: Actor) =>
    tokenFor(app, actor === 'other' ? users.holder : users[actor as keyof typeof users]);

  it('the event socket (/api/race-ws): opening it and each message, as every actor', async () => {
    const inLobby = new Set<Actor>();
    const stateOf = (m: Json) =>
      m.type === 'race_state_update'
        ? (m.payload as { participants: { userId: number; isReady: boolean }[] }).participants
        : null;
    const mine = (actor: Actor, m: Json) =>
      stateOf(m)?.find((p) => p.userId === users[actor as keyof typeof users]?.id);
    const probes: Record<EventClientMessage['type'], Probe> = {
      hello: (socket) => quietAnswer(socket, { type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION }),
      get_current_state: (socket) =>
        answer(socket, { type: 'get_current_state' }, (m) => m.type === 'race_state_update'),
      join_lobby: async (socket, actor) => {
        const got = await answer(
          socket,
          { type: 'join_lobby', carId: driving.carId },
          (m) => !!mine(actor, m),
        );
        if (got === 'ok') inLobby.add(actor);
        return got;
      },
      toggle_ready: (socket, actor) =>
        answer(socket, { type: 'toggle_ready' }, (m) => mine(actor, m)?.isReady === true),
      // Only someone in the lobby can be seen leaving it.
      leave_lobby: (socket, actor) =>
        answer(socket, { type: 'leave_lobby' }, (m) => inLobby.has(actor) && !!stateOf(m) && !mine(actor, m)),
      ping: (socket) =>
        answer(socket, { type: 'ping', timestamp: 4242 }, (m) => m.type === 'pong' && m.timestamp === 4242),
      ping_update: (socket) => quietAnswer(socket, { type: 'ping_update', latency: 42 }),
      auth: async (socket, actor) =>
        answer(socket, { type: 'auth', token: await renewalOf(actor) }, (m) => m.type === 'auth_ok'),
    };
    const { found } = await playSocket('event', EVENT_SOCKET, probes, (actor) =>
      browser('/api/race-ws', actor),
    );
    expect(found.cells).toBeGreaterThan(ACTORS.length * 5);
    expect(found.lines).toEqual([]);
  });

  it('the controller socket (/rcsocket?type=controller): opening it and each message, as every actor', async () => {
    const probes: Record<ControllerMessage['type'], Probe> = {
      hello: (socket) => quietAnswer(socket, { type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION }),
      // Accepted: the car is told to drive.
      drive: (socket) =>
        answer(socket, { type: 'drive', throttle: 0.25, steer: 0 }, () => false, {
          socket: carSocket,
          accepted: (m) => m.type === 'drive' && m.throttle === 0.25,
        }),
      'controller-ping': (socket) =>
        answer(
          socket,
          { type: 'controller-ping', timestamp: 4242 },
          (m) => m.type === 'controller-pong' && m.timestamp === 4242,
        ),
      auth: async (socket, actor) =>
        answer(socket, { type: 'auth', token: await renewalOf(actor) }, (m) => m.type === 'auth_ok'),
      // Answered: the server's peer for the socket's drive channel.
      rtc_offer: (socket) =>
        answer(socket, { type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER }, (m) => m.type === 'rtc_answer'),
      // Dropped when the address policy refused it: no error, and no check ever sent there.
      rtc_candidate: async (socket) => {
        const { candidates } = driveChannelThread.counters;
        const [taken, refused] = [candidates.taken, candidates.refused.special_purpose];
        const got = await quietAnswer(socket, {
          type: 'rtc_candidate',
          candidate: 'candidate:1 1 udp 2113937151 192.0.2.1 50000 typ host',
          sdpMid: '0',
        });
        if (got !== 'ok') return got;
        if (candidates.refused.special_purpose > refused && candidates.taken === taken) return 'dropped';
        return 'ok';
      },
    };
    const { found, kept } = await playSocket(
      'controller',
      CONTROLLER_SOCKET,
      probes,
      (actor) => {
        // Each with the control token they have for the car: the holder's own; `other` the holder's.
        const own =
          actor === 'holder' || actor === 'other' ? `&control_token=${encodeURIComponent(controlToken)}` : '';
        return browser(`/rcsocket?type=controller&car=${driving.carId}${own}`, actor);
      },
      { keepOpen: 'holder' },
    );
    holderController = kept;
    expect(found.lines).toEqual([]);
    expect(found.cells).toBeGreaterThan(ACTORS.length);
  });

  // ── /janus ─────────────────────────────────────────────────────────────────────────────────

  type JanusIds = { session?: number; handle?: number };

  /** Each Janus request as a page would send it, on `ids` (the socket's own, `other`'s the holder's). */
  const janusRequest = (key: string, ids: JanusIds, actor: Actor): Json => {
    const session = { session_id: ids.session };
    const handle = { session_id: ids.session, handle_id: ids.handle };
    if (key === 'create') return { janus: 'create' };
    if (key === 'attach streaming') return { janus: 'attach', plugin: STREAMING_PLUGIN, ...session };
    if (key === 'attach videoroom') return { janus: 'attach', plugin: 'janus.plugin.videoroom', ...session };
    if (key === 'message watch') {
      const pin = pins[actor];
      return {
        janus: 'message',
        ...handle,
        body: { request: 'watch', id: streamId, ...(pin ? { pin } : {}) },
      };
    }
    if (key.startsWith('message ')) return { janus: 'message', ...handle, body: { request: key.slice(8) } };
    if (key === 'trickle') return { janus: 'trickle', ...handle, candidate: { completed: true } };
    if (key === 'hangup' || key === 'detach') return { janus: key, ...handle };
    return { janus: key, ...session };
  };

  /** What became of a Janus request: refused by the proxy, or answered by Janus (a watch: offered or not). */
  async function janusOutcome(
    socket: TestSocket,
    key: string,
    request: Json,
    ids: JanusIds,
  ): Promise<string> {
    const transaction = randomUUID();
    const from = socket.messages.length;
    socket.send({ ...request, transaction });
    // A watch is acknowledged first, and answered by the plugin's event.
    const reply = await firstFrom(
      socket,
      from,
      (m) => m.transaction === transaction && (key !== 'message watch' || m.janus !== 'ack'),
    );
    if (!reply) return silence(socket);
    if (reply.janus === 'error' && String((reply.error as { reason?: string }).reason).startsWith('Refused:'))
      return 'refused';
    if (key === 'message watch') {
      const data = (reply.plugindata as { data?: { error_code?: number; error?: string } } | undefined)?.data;
      if (data?.error_code !== undefined)
        return /\bpin\b/i.test(data.error ?? '')
          ? 'wrong PIN'
          : `Janus error ${data.error_code}: ${data.error}`;
      return (reply.jsep as { type?: string } | undefined)?.type === 'offer'
        ? 'watching'
        : JSON.stringify(reply);
    }
    const id = (reply.data as { id?: number } | undefined)?.id;
    if (reply.janus === 'success' && key === 'create') ids.session = id;
    if (reply.janus === 'success' && key === 'attach streaming') ids.handle = id;
    return 'forwarded';
  }

  it('/janus: opening it and each Janus request, as every actor', async () => {
    const found = new Mismatches();
    for (const actor of ACTORS) {
      const expected = outcomeOf(JANUS_SOCKET.open, actor);
      const { url, headers } = browser('/janus', actor);
      const opened = await open(expected, url, headers, () =>
        openJanusSocket(app, host, tokens[actor] ?? ''),
      );
      found.check('/janus: open', actor, expected, opened.outcome);
      const socket = opened.socket;
      if (!socket) continue;
      const own: JanusIds = {};
      for (const [key, row] of Object.entries(JANUS_SOCKET.requests)) {
        // `other` creates a session of its own, and names the holder's in everything else.
        const ids = actor === 'other' && key !== 'create' ? { ...holderPlayer } : own;
        const got = await janusOutcome(socket, key, janusRequest(key, ids, actor), ids);
        found.check(`/janus: ${key}`, actor, outcomeOf(row, actor), got);
      }
      await socket.close();
    }
    expect(found.cells).toBeGreaterThan(ACTORS.length * 10);
    expect(found.lines).toEqual([]);
  });

  // ── The car's socket, last: its new connection replaces the one the setup made ────────────

  it('the car socket (/rcsocket?type=car): its secret opens it, no member token does', async () => {
    const probes: Record<CarAgentMessage['type'], Probe> = {
      hello: (socket) =>
        answer(
          socket,
          { type: 'hello', protocolVersion: CAR_PROTOCOL_VERSION, agentVersion: 'matrix' },
          (m) => m.type === 'welcome',
        ),
      // Accepted: the holder's control page shows it.
      telemetry: (socket) => {
        if (!holderController) return Promise.resolve('no holder control socket to show it');
        return answer(socket, { type: 'telemetry', battery: 77 }, () => false, {
          socket: holderController,
          accepted: (m) => m.type === 'telemetry' && (m.telemetry as { battery?: number }).battery === 77,
        });
      },
      pass: (socket) => quietAnswer(socket, { type: 'pass', at: Date.now() }),
    };
    const { found } = await playSocket('car', CAR_SOCKET, probes, (actor) => ({
      url: `ws://${host}/rcsocket?type=car&car=${driving.carId}`,
      headers: bearer(tokens[actor]),
    }));
    expect(found.cells).toBe(ACTORS.length + 3);
    expect(found.lines).toEqual([]);
  });

  it('the sockets the banned member and the demoted admin opened before the change', async () => {
    const found = new Mismatches();
    for (const [actor, kinds] of Object.entries(SOCKETS_HELD_ACROSS_THE_CHANGE) as [
      'banned' | 'demoted',
      Record<'event' | 'janus', string>,
    ][]) {
      for (const [kind, expected] of Object.entries(kinds) as ['event' | 'janus', string][]) {
        const socket = heldSockets[actor][kind];
        // Open: it still answers (the event socket a ping, /janus with its refusal of a stray request).
        const from = socket.messages.length;
        if (socket.ws.readyState === WebSocket.OPEN) {
          if (kind === 'event') socket.send({ type: 'ping', timestamp: 7 });
          else socket.send({ janus: 'keepalive', transaction: randomUUID() });
        }
        const reply = await firstFrom(socket, from, (m) => m.type === 'pong' || m.janus === 'error');
        const closed = socket.ws.readyState === WebSocket.CLOSED ? await socket.closed : null;
        const got = reply ? 'open' : closed ? `closed ${closed.code} ${closed.reason}` : 'no answer';
        found.check(`${kind} socket held across the change`, actor, expected, got);
      }
    }
    expect(found.lines).toEqual([]);
    // The event socket said why before it closed.
    expect(heldSockets.banned.event.messages).toContainEqual({ type: 'force_disconnect', reason: 'banned' });
  });
});
