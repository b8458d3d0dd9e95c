/**
 * The authorization matrix (test/authorization-matrix.ts) played cell by cell against one real
 * server with its own Janus: every operation of the served OpenAPI document over REST (every signed
 * webhook's secret set, so they are served), every message of the event, controller and car
 * sockets over real WebSockets and of the drive channel over a real DataChannel, every Janus
 * request through /janus, as each actor; and each webhook's deliveries, signed in every way.
 * The operations and message types come from /api/openapi.json and the protocol's unions: one the
 * table does not name, or one it names that is gone, fails the first test.
 *
 * Nothing is changed by a cell: REST calls an actor is let through carry invalid input (a 400 is
 * "let through") except reads, which are valid. The actors are made the way they happen: the
 * banned member and the demoted admin used their tokens (and opened sockets) before an admin
 * banned or demoted them through the API, and keep using the same tokens after; the former holder
 * drove the car (over its drive channel too) until an admin kicked them.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BROWSER_PROTOCOL_VERSION,
  CAR_PROTOCOL_VERSION,
  CarAgentMessage,
  ControllerMessage,
  DRIVE_CHANNEL,
  DriveChannelMessage,
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
import {
  ACTORS,
  type Actor,
  CAR_SOCKET,
  CONTROLLER_SOCKET,
  DRIVE_DATA_CHANNEL,
  EVENT_SOCKET,
  JANUS_CORE_REQUESTS,
  JANUS_SOCKET,
  type OpenOutcome,
  REST,
  type Row,
  SOCKETS_HELD_ACROSS_THE_CHANGE,
  type SocketTable,
  STREAMING_PLUGIN_REQUESTS,
  WEBHOOKS,
  type WebhookSigning,
} from '../test/authorization-matrix.js';
import { DriveChannelClient, SAMPLE_DRIVE_OFFER } from '../test/drive-channel-client.js';
import { buildAdmin, buildUser, tokenFor } from '../test/factories.js';
import {
  connectCar,
  controllerUrl,
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

type Json = Record<string, unknown> & { type?: string };
type OpenApi = { paths: Record<string, Record<string, unknown>> };

const outcomeOf = <O extends string>(row: Row<O>, actor: Actor): O => row[actor] ?? row.rest;

/** The message types of a protocol union, as its schemas spell them. */
const typesOf = (union: z.ZodDiscriminatedUnion): string[] =>
  union.options.flatMap((option) => [
    ...((option as z.ZodObject).shape as { type: z.ZodLiteral<string> }).type.values,
  ]);

/** Refusals by status and errorKey, as the table writes them (REST and socket upgrades alike). */
const REFUSALS: Record<string, OpenOutcome | '403 invalidWebhookSignature'> = {
  '401 errors.unauthorized': '401',
  '401 errors.banned': '401 banned',
  '403 errors.forbidden': '403',
  '403 errors.registrationIncomplete': '403 registrationIncomplete',
  '403 errors.invalidWebhookSignature': '403 invalidWebhookSignature',
};

/** Each signed webhook's secret (Twitch's: 10–100 characters), so the app serves them all. */
const WEBHOOK_SECRETS = Object.fromEntries(
  Object.values(WEBHOOKS).map(({ secretVariable }) => [secretVariable, `matrix ${secretVariable} secret`]),
);

/**
 * How long a drive channel may take to open here: the table is about who may, not how fast (a
 * loaded 2-core machine took over 10 s, the test client's default, with other suites beside it).
 */
const CHANNEL_OPEN_MS = 25_000;

/** A signature made with a secret that is not the webhook's. */
const ANOTHER_SECRET = 'not the secret of this webhook';
const hmacHex = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

/** How each webhook's sender signs a delivery of `body`, with `secret`, as `signing` says. */
const SIGNERS: Record<
  string,
  (secret: string, signing: WebhookSigning, body: string) => Record<string, string>
> = {
  'POST /api/webhooks/tips': (secret, signing, body): Record<string, string> =>
    signing === 'unsigned' ? {} : { 'x-signature': hmacHex(secret, body) },
  // Twitch signs the message id and timestamp, then the body (integrations/twitch/twitch-eventsub.routes.ts).
  'POST /api/webhooks/twitch': (secret, signing, body) => {
    const id = randomUUID();
    const sentAt = new Date(Date.now() - (signing === 'sent 11 minutes ago' ? 11 * 60_000 : 0)).toISOString();
    const signed = signing === 'body only' ? body : `${id}${sentAt}${body}`;
    return {
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': sentAt,
      'twitch-eventsub-message-type': 'notification',
      ...(signing === 'unsigned'
        ? {}
        : { 'twitch-eventsub-message-signature': `sha256=${hmacHex(secret, signed)}` }),
    };
  },
};

/**
 * The server modules that define a signed webhook (`signedWebhookRoutes(`): a webhook is served
 * only when its secret is set, so one whose secret WEBHOOKS does not name would be missing from
 * the document the first test walks.
 */
function webhookDefinitions(): string[] {
  const src = join(import.meta.dirname, '..');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('verified-webhook.ts'),
    )
    .filter((file) => readFileSync(join(src, file), 'utf8').includes('signedWebhookRoutes('));
}

/** A socket error as the table writes it: `error notInLobby`. */
const socketError = (message: Json): string =>
  message.type === 'incompatible'
    ? 'incompatible'
    : `error ${String(message.errorKey).replace(/^errors\./, '')}`;

/** Cells that did not answer as the table says, one line each, so a failure lists them all. */
class Mismatches {
  readonly lines: string[] = [];
  cells = 0;

  /** `who`: an actor, or a webhook delivery's way of signing. */
  check(what: string, who: string, expected: string, got: string): void {
    this.cells += 1;
    if (got !== expected) this.lines.push(`${what} as ${who}: expected ${expected}, got ${got}`);
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
 * `via`: sent there instead (the socket's drive channel, whose answers and errors come on the socket).
 */
async function answer(
  socket: TestSocket,
  message: object,
  accepted: (m: Json) => boolean,
  elsewhere?: { socket: TestSocket; accepted: (m: Json) => boolean },
  via: { send(message: object): void } = socket,
): Promise<string> {
  const from = socket.messages.length;
  const elsewhereFrom = elsewhere?.socket.messages.length ?? 0;
  via.send(message);
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
  /** The control token the former holder had for the car, before they were kicked. */
  let formerControlToken: string;
  /** The former holder's control socket and drive channel, opened while they held the car. */
  let formerHeld: { controller: TestSocket; channel: DriveChannelClient };
  /** The video PIN each actor was shown: the demoted admin's while still an admin. */
  const pins: Partial<Record<Actor, string>> = {};
  /** A second member with registration incomplete, for the one call that would complete the first's. */
  let disposableIncompleteToken: string;
  /** The holder watching on a Janus session and handle of their own (`other` tries to use them). */
  let holderPlayer: { session: number; handle: number };
  const heldSockets = {} as Record<'banned' | 'demoted', Record<'event' | 'janus', TestSocket>>;
  /** The drive channels opened in the test, closed at its end (their UDP ports). */
  const channels: DriveChannelClient[] = [];
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
    ({ testApp, host } = await startOwnJanusTestApp(WEBHOOK_SECRETS));
    app = testApp.app;
    const db = app.database.db;

    driving = await createCar(app, 'Matrix car');
    carSocket = await connectCar(host, driving.carId, driving.secret);

    // The former holder takes the car and drives it over its drive channel.
    users.former = await buildUser(db);
    const former = await takeCar(app, driving, users.former);
    // The car is told where to stream once its mountpoint exists: the PINs are real from here on.
    await carSocket.nextOfType('video', 10_000);
    formerControlToken = former.controlToken;
    const formerController = await openSocket(
      controllerUrl(host, driving.carId, former.accessToken, former.controlToken),
      originOf(app),
    );
    await formerController.nextOfType('car-status');
    const formerChannel = await DriveChannelClient.open(formerController.ws, { timeoutMs: CHANNEL_OPEN_MS });
    channels.push(formerChannel);
    formerChannel.drive(0.125, 0, 1);
    await carSocket.next((m) => m.type === 'drive' && m.throttle === 0.125);
    await formerChannel.acked(1);
    formerHeld = { controller: formerController, channel: formerChannel };

    users.admin = driving.admin;
    users.holder = await buildUser(db);
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
    /** Acts, then waits until Janus has the car's new PIN. */
    const rekeyedBy = async (act: () => Promise<LightMyRequestResponse>) => {
      const rekeyed = () =>
        testApp.logLines().filter((line) => line.msg === 'new PIN, viewers evicted').length;
      const seen = rekeyed();
      const response = await act();
      expect(response.statusCode, response.body).toBe(200);
      await vi.waitFor(() => expect(rekeyed()).toBeGreaterThan(seen), { timeout: 10_000, interval: 20 });
    };
    // Every PIN is replaced when an admin loses the role.
    await rekeyedBy(() =>
      adminCall('POST', `/api/admin/users/${users.demoted.id}/toggle-admin`, tokens.admin, {
        makeAdmin: false,
      }),
    );

    // The former holder's player reads the PIN as it is now; then an admin kicks them: their
    // session ends, and with it that PIN.
    const formerPin = pinOf(await adminCall('GET', `/api/cars/${driving.carId}/status`, tokens.former));
    expect(formerPin).not.toBeNull();
    pins.former = formerPin ?? '';
    await rekeyedBy(() => adminCall('POST', `/api/admin/cars/${driving.carId}/kick`, tokens.admin));

    const taken = await takeCar(app, driving, users.holder);
    controlToken = taken.controlToken;
    await carSocket.nextOfType('video', 10_000);

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
  afterAll(async () => {
    await Promise.all(channels.map((channel) => channel.close()));
    await testApp?.close();
  });

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
    // The drive channel: its own messages, and every other message of the socket that negotiates it.
    const channelTypes = typesOf(DriveChannelMessage);
    expect(Object.keys(DRIVE_DATA_CHANNEL.messages).sort(), 'drive channel').toEqual(channelTypes.sort());
    expect(Object.keys(DRIVE_DATA_CHANNEL.socketMessages).sort(), 'drive channel').toEqual(
      typesOf(ControllerMessage)
        .filter((type) => !channelTypes.includes(type))
        .sort(),
    );

    // Every signed webhook is served here, and each has its signatures played.
    const webhooks = operations.filter((operation) => operation.startsWith('POST /api/webhooks/'));
    expect(Object.keys(WEBHOOKS).sort()).toEqual(webhooks.sort());
    expect(Object.keys(SIGNERS).sort()).toEqual(webhooks.sort());
    expect(webhookDefinitions()).toHaveLength(webhooks.length);
    const janusKeys = [
      ...JANUS_CORE_REQUESTS.filter((request) => request !== 'attach' && request !== 'message'),
      'attach streaming',
      'attach videoroom',
      ...STREAMING_PLUGIN_REQUESTS.map((request) => `message ${request}`),
      // `configure` twice: bare (refused) and with a playout delay only (the player's).
      'message configure playout-delay',
    ];
    expect(Object.keys(JANUS_SOCKET.requests).sort()).toEqual(janusKeys.sort());

    // A message row speaks only for the actors its socket lets in: a refused one has nothing to send on.
    const tables: [string, Row<OpenOutcome>, Record<string, Row<string>>][] = [
      ...sockets.map(
        ([name, table]) =>
          [name, table.open, table.messages] as [string, Row<OpenOutcome>, Record<string, Row<string>>],
      ),
      ['drive channel', DRIVE_DATA_CHANNEL.open, DRIVE_DATA_CHANNEL.messages],
      ['drive channel', DRIVE_DATA_CHANNEL.open, DRIVE_DATA_CHANNEL.socketMessages],
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

  it('signed webhooks: each delivery signed as its sender signs it, and signed wrongly', async () => {
    const found = new Mismatches();
    // Invalid (a JSON array): let through, it is a 400, and nothing is delivered.
    const body = '[1]';
    for (const [operation, { secretVariable, signings }] of Object.entries(WEBHOOKS)) {
      const [, path = ''] = operation.split(' ');
      for (const [signing, expected] of Object.entries(signings) as [WebhookSigning, string][]) {
        const secret =
          signing === 'another secret' ? ANOTHER_SECRET : (WEBHOOK_SECRETS[secretVariable] ?? '');
        const response = await app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', ...SIGNERS[operation]?.(secret, signing, body) },
          payload: body,
        });
        found.check(operation, signing, expected, httpOutcome(operation, response));
      }
    }
    expect(found.cells).toBeGreaterThanOrEqual(Object.keys(WEBHOOKS).length * 3);
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
        // Each with the control token they have for the car: the holder's own; `other` the holder's;
        // the former holder the one their ended session had.
        const token =
          actor === 'holder' || actor === 'other'
            ? controlToken
            : actor === 'former'
              ? formerControlToken
              : null;
        const own = token ? `&control_token=${encodeURIComponent(token)}` : '';
        return browser(`/rcsocket?type=controller&car=${driving.carId}${own}`, actor);
      },
      { keepOpen: 'holder' },
    );
    holderController = kept;
    expect(found.lines).toEqual([]);
    expect(found.cells).toBeGreaterThan(ACTORS.length);
  });

  it("the drive channel: opened on the holder's controller socket, each message on it", async () => {
    // Only whoever the controller socket lets in has a channel: the holder, whose socket the
    // controller socket's test kept open (the others' refusals are that test's cells).
    expect(ACTORS.filter((actor) => outcomeOf(DRIVE_DATA_CHANNEL.open, actor) === 'open')).toEqual([
      'holder',
    ]);
    const socket = holderController;
    if (!socket) throw new Error('no holder control socket to open a drive channel on');
    const found = new Mismatches();
    // Offers on one socket come DRIVE_CHANNEL.minOfferIntervalMs apart (the controller test offered).
    await sleep(DRIVE_CHANNEL.minOfferIntervalMs);
    let channel: DriveChannelClient;
    try {
      channel = await DriveChannelClient.open(socket.ws, { timeoutMs: CHANNEL_OPEN_MS });
    } catch (error) {
      found.check('drive channel: open', 'holder', 'open', `not open: ${(error as Error).message}`);
      expect(found.lines).toEqual([]);
      return;
    }
    channels.push(channel);
    found.check('drive channel: open', 'holder', 'open', 'open');

    const onChannel = (message: object, accepted: (m: Json) => boolean) =>
      answer(socket, message, accepted, undefined, channel);
    const probes: Record<DriveChannelMessage['type'], () => Promise<string>> = {
      // Accepted: the car is told to drive, and the drive is acknowledged on the channel.
      drive: async () => {
        const got = await answer(
          socket,
          { type: 'drive', throttle: 0.375, steer: 0, seq: 1 },
          () => false,
          { socket: carSocket, accepted: (m) => m.type === 'drive' && m.throttle === 0.375 },
          channel,
        );
        if (got !== 'ok') return got;
        return channel.acked(1).then(
          () => 'ok',
          () => 'not acknowledged on the channel',
        );
      },
    };
    const socketProbes: Record<keyof typeof DRIVE_DATA_CHANNEL.socketMessages, () => Promise<string>> = {
      hello: () => onChannel({ type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION }, () => false),
      'controller-ping': () =>
        onChannel(
          { type: 'controller-ping', timestamp: 4343 },
          (m) => m.type === 'controller-pong' && m.timestamp === 4343,
        ),
      auth: async () =>
        onChannel({ type: 'auth', token: await renewalOf('holder') }, (m) => m.type === 'auth_ok'),
      rtc_offer: () =>
        onChannel({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER }, (m) => m.type === 'rtc_answer'),
      rtc_candidate: () =>
        onChannel(
          {
            type: 'rtc_candidate',
            candidate: 'candidate:1 1 udp 2113937151 192.0.2.1 50000 typ host',
            sdpMid: '0',
          },
          () => false,
        ),
    };
    for (const [type, probe] of Object.entries(probes) as [
      DriveChannelMessage['type'],
      () => Promise<string>,
    ][])
      found.check(
        `drive channel: ${type}`,
        'holder',
        outcomeOf(DRIVE_DATA_CHANNEL.messages[type], 'holder'),
        await probe(),
      );
    for (const [type, probe] of Object.entries(socketProbes) as [
      keyof typeof DRIVE_DATA_CHANNEL.socketMessages,
      () => Promise<string>,
    ][])
      found.check(
        `drive channel: the socket's ${type}`,
        'holder',
        outcomeOf(DRIVE_DATA_CHANNEL.socketMessages[type], 'holder'),
        await probe(),
      );
    expect(found.cells).toBe(1 + Object.keys(probes).length + Object.keys(socketProbes).length);
    expect(found.lines).toEqual([]);
  }, 60_000);

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
    if (key === 'message configure playout-delay')
      return { janus: 'message', ...handle, body: { request: 'configure', min_delay: 0, max_delay: 0 } };
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
      rtc_offer: (socket) =>
        answer(socket, { type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER }, (m) => m.type === 'rtc_answer'),
      'link-ping': (socket) =>
        answer(socket, { type: 'link-ping', t: 1234 }, (m) => m.type === 'link-pong' && m.t === 1234),
    };
    const { found } = await playSocket('car', CAR_SOCKET, probes, (actor) => ({
      url: `ws://${host}/rcsocket?type=car&car=${driving.carId}`,
      headers: bearer(tokens[actor]),
    }));
    expect(found.cells).toBe(ACTORS.length + 5);
    expect(found.lines).toEqual([]);
  });

  it('the sockets the banned member, the demoted admin and the former holder opened before the change', async () => {
    const found = new Mismatches();
    /** Open: it still answers `probe`; else closed (with its code and reason), or silent. */
    const held = async (
      socket: TestSocket,
      probe: object,
      answered: (m: Json) => boolean,
    ): Promise<string> => {
      const from = socket.messages.length;
      if (socket.ws.readyState === WebSocket.OPEN) socket.send(probe);
      const reply = await firstFrom(socket, from, answered);
      const closed = socket.ws.readyState === WebSocket.CLOSED ? await socket.closed : null;
      return reply ? 'open' : closed ? `closed ${closed.code} ${closed.reason}` : 'no answer';
    };
    const { banned, demoted, former } = SOCKETS_HELD_ACROSS_THE_CHANGE;
    for (const [actor, kinds] of [
      ['banned', banned],
      ['demoted', demoted],
    ] as const) {
      // The event socket answers a ping, /janus a stray request with its refusal.
      found.check(
        'event socket held across the change',
        actor,
        kinds.event,
        await held(heldSockets[actor].event, { type: 'ping', timestamp: 7 }, (m) => m.type === 'pong'),
      );
      found.check(
        'janus socket held across the change',
        actor,
        kinds.janus,
        await held(
          heldSockets[actor].janus,
          { janus: 'keepalive', transaction: randomUUID() },
          (m) => m.janus === 'error',
        ),
      );
    }
    found.check(
      'controller socket held across the change',
      'former',
      former.controller,
      await held(
        formerHeld.controller,
        { type: 'controller-ping', timestamp: 7 },
        (m) => m.type === 'controller-pong',
      ),
    );
    const channel = await Promise.race([
      formerHeld.channel.closed.then(() => 'closed'),
      sleep(5_000).then(() => 'open'),
    ]);
    found.check('drive channel held across the change', 'former', former['drive channel'], channel);
    expect(found.lines).toEqual([]);
    // The event socket said why before it closed.
    expect(heldSockets.banned.event.messages).toContainEqual({ type: 'force_disconnect', reason: 'banned' });
  });
});
