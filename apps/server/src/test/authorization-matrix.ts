/**
 * Who may do what, as one table (issue 26, item 7): for every operation of the API reference and
 * every message of every socket and of the drive channel, what each kind of caller gets.
 * authorization-matrix.test.ts walks the served OpenAPI document (with every signed webhook's
 * secret set, so the webhooks are in it) and the protocol's message unions, fails on an operation
 * or a message this table does not name (or one it names that no longer exists), and plays every
 * cell against a real server: REST calls, signed and unsigned webhook deliveries, real sockets, a
 * real drive channel (werift), a real Janus behind /janus.
 *
 * A row gives an outcome per actor; `rest` is the outcome of every actor the row does not name.
 * A socket's message rows speak for the actors its `open` row lets in (a refused actor has no
 * socket to send on), in the order the test sends them.
 */
import type {
  CarAgentMessage,
  ControllerMessage,
  DriveChannelMessage,
  EventClientMessage,
} from '@telerace/protocol';

/** The callers, each with the credentials the test gives them. */
export const ACTORS = [
  /** No token at all. */
  'anonymous',
  /** A member who accepted the terms and holds no car. */
  'member',
  /** A member an admin banned while their access token is still valid (it was used just before). */
  'banned',
  /** A social sign-up who has not accepted the terms yet: registration incomplete. */
  'incomplete',
  /** The member whose turn it is to drive the car: they took it with its control code. */
  'holder',
  /**
   * The member who held the car before, until an admin kicked them (their session ended): they
   * keep their access token, the control token and the video PIN they had, and present them.
   */
  'former',
  /**
   * Another member presenting what is the holder's: the holder's control token on the control
   * socket, the holder's car in `join_lobby`, the holder's access token in `auth`, the holder's
   * Janus session and handle on /janus. Elsewhere a member like `member`.
   */
  'other',
  /** An admin whose role another admin removed while their token is still valid (used as admin before). */
  'demoted',
  'admin',
  /** The car agent's secret, presented wherever a member's access token goes (and on its own socket). */
  'car',
] as const;
export type Actor = (typeof ACTORS)[number];

/** An outcome per actor: those named, and `rest` for every other one. */
export type Row<O extends string> = Partial<Record<Actor, O>> & { rest: O };

/**
 * REST: `public` — an open route: every actor gets the anonymous caller's answer (status and
 * errorKey), the bearer token is not read; `ok` — let through (any answer but 401, 403, 429 or
 * 5xx: the test sends invalid input where valid input would change something, so a 400 is an
 * `ok`); `401` errors.unauthorized; `401 banned` errors.banned; `403` errors.forbidden;
 * `403 registrationIncomplete`; `ok, PIN shown` / `ok, no PIN`: a 200 whose car shows its video
 * PIN or not.
 */
export type HttpOutcome =
  | 'public'
  | 'ok'
  | 'ok, PIN shown'
  | 'ok, no PIN'
  | '401'
  | '401 banned'
  | '403'
  | '403 registrationIncomplete'
  | '403 invalidWebhookSignature';

/** Opening a socket: upgraded (`open`), or the upgrade refused with this status and errorKey. */
export type OpenOutcome = 'open' | '401' | '401 banned' | '403' | '403 registrationIncomplete';

/**
 * A socket message: `ok` — accepted (its answer, or no error when it has none); `dropped` — taken
 * without an answer and acted on not at all (a drive channel candidate the address policy
 * refuses); `error <key>` — the socket's error message with that errorKey; `closed <code>` — the
 * server closed the socket.
 */
export type MessageOutcome =
  | 'ok'
  | 'dropped'
  | 'error registrationIncomplete'
  | 'error notCarHolder'
  | 'error notInLobby'
  | 'error validation'
  | 'closed 4005';

export interface SocketTable<T extends string> {
  open: Row<OpenOutcome>;
  messages: Record<T, Row<MessageOutcome>>;
}

/**
 * A Janus request on /janus: `forwarded` — it reached Janus, which answered; `refused` — the
 * proxy answered it (Refused: …) and Janus never saw it; `watching` — Janus offered the car's
 * stream; `wrong PIN` — Janus refused the watch for its PIN.
 */
export type JanusOutcome = 'forwarded' | 'refused' | 'watching' | 'wrong PIN';

// ── REST ─────────────────────────────────────────────────────────────────────────────────────

const PUBLIC: Row<HttpOutcome> = { rest: 'public' };
/** `access: 'member'`: signed in, not banned, terms accepted. */
const MEMBER: Row<HttpOutcome> = {
  anonymous: '401',
  banned: '401 banned',
  incomplete: '403 registrationIncomplete',
  car: '401',
  rest: 'ok',
};
/** `access: 'member-before-terms'`: what a social sign-up may do before accepting the terms. */
const BEFORE_TERMS: Row<HttpOutcome> = { ...MEMBER, incomplete: 'ok' };
/**
 * `access: 'admin'`, read from the member's row as it is now (a demoted admin is a member): every
 * member who is not an admin, a new kind included, gets 403.
 */
const ADMIN: Row<HttpOutcome> = { ...MEMBER, admin: 'ok', rest: '403' };
/**
 * A signed webhook (integrations/verified-webhook.ts): the caller is the signature, never a
 * token; every actor's call carries its bearer token and no signature. WEBHOOKS plays the
 * signatures.
 */
const SIGNED_WEBHOOK: Row<HttpOutcome> = { rest: '403 invalidWebhookSignature' };

/** Every operation of /api/openapi.json, `METHOD path` as the document spells it. */
export const REST: Record<string, Row<HttpOutcome>> = {
  // Open: health, sign-in and sign-up, public pages. The refresh and log-out read the session
  // cookie, /connect the token in its query, never the bearer token.
  'GET /api/health': PUBLIC,
  'GET /api/ready': PUBLIC,
  'GET /api/public-config': PUBLIC,
  'POST /api/signup': PUBLIC,
  'POST /api/login': PUBLIC,
  'POST /api/refresh-token': PUBLIC,
  'POST /api/logout': PUBLIC,
  'POST /api/forgot-password': PUBLIC,
  'POST /api/reset-password': PUBLIC,
  'POST /api/auth/exchange': PUBLIC,
  'GET /api/auth/{platform}': PUBLIC,
  'GET /api/auth/{platform}/callback': PUBLIC,
  'GET /api/connect/{platform}': PUBLIC,
  'GET /api/leaderboards/all-time': PUBLIC,
  'GET /api/leaderboards/season/{season}': PUBLIC,
  'GET /api/races/{id}': PUBLIC,
  'GET /api/raffles/current': PUBLIC,
  'GET /api/raffles/{id}': PUBLIC,
  'GET /api/raffles/{id}/entries': PUBLIC,
  'GET /api/raffles/{id}/record': PUBLIC,

  // A social sign-up reads itself, finishes its registration or deletes its account first.
  'GET /api/me': BEFORE_TERMS,
  'POST /api/auth/complete-registration': BEFORE_TERMS,
  'DELETE /api/me': BEFORE_TERMS,

  // Members.
  'PATCH /api/me': MEMBER,
  'PATCH /api/me/details': MEMBER,
  'PATCH /api/me/theme': MEMBER,
  'POST /api/me/password': MEMBER,
  'POST /api/me/disconnect': MEMBER,
  'GET /api/me/tickets': MEMBER,
  'GET /api/me/race-history': MEMBER,
  'GET /api/me/last-race': MEMBER,
  'GET /api/video/ice-servers': MEMBER,
  'GET /api/cars': MEMBER,
  // The holder's car: its video PIN only for its holder and admins (a demoted admin no longer).
  'GET /api/cars/{id}/status': {
    ...MEMBER,
    holder: 'ok, PIN shown',
    admin: 'ok, PIN shown',
    rest: 'ok, no PIN',
  },
  'POST /api/cars/{id}/connect': MEMBER,

  // Admins.
  'GET /api/admin/settings': ADMIN,
  'PATCH /api/admin/settings': ADMIN,
  'GET /api/admin/cars': ADMIN,
  'POST /api/admin/cars': ADMIN,
  'POST /api/admin/cars/{id}/rotate-secret': ADMIN,
  'DELETE /api/admin/cars/{id}': ADMIN,
  'POST /api/admin/cars/{id}/generate_code': ADMIN,
  'POST /api/admin/cars/{id}/kick': ADMIN,
  'POST /api/admin/cars/{id}/command': ADMIN,
  'POST /api/admin/cars/{id}/config': ADMIN,
  'PUT /api/admin/cars/{id}/lap-counter-id': ADMIN,
  'GET /api/admin/users': ADMIN,
  'GET /api/admin/logins': ADMIN,
  'POST /api/admin/users/{id}/ban': ADMIN,
  'POST /api/admin/users/{id}/toggle-admin': ADMIN,
  'POST /api/admin/users/{id}/adjust-tickets': ADMIN,
  'DELETE /api/admin/users/{id}': ADMIN,
  'GET /api/admin/race': ADMIN,
  'POST /api/admin/race/start': ADMIN,
  'POST /api/admin/race/end': ADMIN,
  'POST /api/admin/race/sync-lap-counter': ADMIN,
  'GET /api/admin/raffle': ADMIN,
  'POST /api/admin/race/start-raffle': ADMIN,
  'POST /api/admin/race/raffle-entries': ADMIN,
  'POST /api/admin/race/draw-winners': ADMIN,
  'POST /api/admin/race/abort-raffle': ADMIN,
  'POST /api/admin/race/clear-pending-wins': ADMIN,
  'GET /api/admin/integrations': ADMIN,
  'POST /api/admin/integrations/{id}/test-message': ADMIN,

  // Registered when their secret is set (the test sets every one in WEBHOOKS).
  'POST /api/webhooks/tips': SIGNED_WEBHOOK,
  'POST /api/webhooks/twitch': SIGNED_WEBHOOK,
};

/**
 * How a delivery is signed: `unsigned` — no signature header; `another secret` — a well-formed
 * signature made with a secret that is not the webhook's; `signed` — as the sender signs it;
 * `body only` — the body signed without the headers the sender signs with it (Twitch: the message
 * id and timestamp); `sent 11 minutes ago` — signed, with a timestamp past the replay window.
 */
export type WebhookSigning = 'unsigned' | 'another secret' | 'signed' | 'body only' | 'sent 11 minutes ago';

/** `ok`: past the signature (the test's body is invalid: a 400 is let through). */
export type WebhookOutcome = 'ok' | '403 invalidWebhookSignature';

const BAD_SIGNATURE = '403 invalidWebhookSignature';

/**
 * Each signed webhook: the variable that turns it on, and the answer to each way of signing a
 * delivery (only those that apply to its sender).
 */
export const WEBHOOKS: Record<
  string,
  { secretVariable: string; signings: Partial<Record<WebhookSigning, WebhookOutcome>> }
> = {
  'POST /api/webhooks/tips': {
    secretVariable: 'TIPS_WEBHOOK_SECRET',
    signings: { unsigned: BAD_SIGNATURE, 'another secret': BAD_SIGNATURE, signed: 'ok' },
  },
  'POST /api/webhooks/twitch': {
    secretVariable: 'TWITCH_EVENTSUB_SECRET',
    signings: {
      unsigned: BAD_SIGNATURE,
      'another secret': BAD_SIGNATURE,
      'body only': BAD_SIGNATURE,
      'sent 11 minutes ago': BAD_SIGNATURE,
      signed: 'ok',
    },
  },
};

// ── Sockets ──────────────────────────────────────────────────────────────────────────────────

const TERMS = 'error registrationIncomplete';

/** /api/race-ws: members may watch (registration incomplete too); race commands need the terms. */
export const EVENT_SOCKET: SocketTable<EventClientMessage['type']> = {
  open: { anonymous: '401', banned: '401 banned', car: '401', rest: 'open' },
  messages: {
    hello: { rest: 'ok' },
    get_current_state: { rest: 'ok' },
    // With the holder's car: only its holder joins the race lobby with it.
    join_lobby: { holder: 'ok', incomplete: TERMS, rest: 'error notCarHolder' },
    toggle_ready: { holder: 'ok', incomplete: TERMS, rest: 'error notInLobby' },
    leave_lobby: { holder: 'ok', incomplete: TERMS, rest: 'error notInLobby' },
    ping: { rest: 'ok' },
    ping_update: { incomplete: TERMS, rest: 'ok' },
    // Each renews with a newer token of their own; `other` with the holder's, which closes the socket.
    auth: { other: 'closed 4005', rest: 'ok' },
  },
};

/** /rcsocket?type=controller: the holder of the car, with their access token and control token. */
export const CONTROLLER_SOCKET: SocketTable<ControllerMessage['type']> = {
  open: {
    anonymous: '401',
    banned: '401 banned',
    incomplete: '403 registrationIncomplete',
    holder: 'open',
    car: '401',
    // Without a control token of their own for the car (`other`: the holder's).
    rest: '403',
  },
  messages: {
    hello: { rest: 'ok' },
    drive: { rest: 'ok' },
    'controller-ping': { rest: 'ok' },
    auth: { rest: 'ok' },
    // The drive channel (issue 27): signalled on the socket, so for whoever may open it.
    rtc_offer: { rest: 'ok' },
    // Issue 39: a candidate at a documentation address (192.0.2.1) is never sent a check.
    rtc_candidate: { rest: 'dropped' },
  },
};

/**
 * The drive channel (issue 27): a DataChannel negotiated on the controller socket (`rtc_offer`),
 * so only whoever that socket lets in has one — its `open` row is the socket's. A message on it
 * is checked as one on the socket (its errors come on the socket). It carries drives only: the
 * socket's other messages sent on it are refused there, so it is no side door to `auth` or a new
 * offer.
 */
export const DRIVE_DATA_CHANNEL: SocketTable<DriveChannelMessage['type']> & {
  socketMessages: Record<
    Exclude<ControllerMessage['type'], DriveChannelMessage['type']>,
    Row<MessageOutcome>
  >;
} = {
  open: CONTROLLER_SOCKET.open,
  messages: {
    // Accepted: the car is told to drive, and the drive is acknowledged on the channel.
    drive: { rest: 'ok' },
  },
  socketMessages: {
    hello: { rest: 'error validation' },
    'controller-ping': { rest: 'error validation' },
    auth: { rest: 'error validation' },
    rtc_offer: { rest: 'error validation' },
    rtc_candidate: { rest: 'error validation' },
  },
};

/** /rcsocket?type=car: the car's own secret only; members' access tokens open nothing. */
export const CAR_SOCKET: SocketTable<CarAgentMessage['type']> = {
  open: { car: 'open', rest: '401' },
  messages: {
    hello: { rest: 'ok' },
    telemetry: { rest: 'ok' },
    pass: { rest: 'ok' },
    // The car's drive channel (issue 42): answered; the car's candidates are never sent to.
    rtc_offer: { rest: 'ok' },
    // Answered with `link-pong` on the same path (issue 42: the car's round trip).
    'link-ping': { rest: 'ok' },
  },
};

// ── /janus ───────────────────────────────────────────────────────────────────────────────────

/** The client requests of Janus's API (Janus 1.1, janus.c), every one of which has rows below. */
export const JANUS_CORE_REQUESTS = [
  'info',
  'ping',
  'create',
  'claim',
  'attach',
  'keepalive',
  'message',
  'trickle',
  'hangup',
  'detach',
  'destroy',
] as const;

/** The requests of Janus's streaming plugin (Janus 1.1, janus_streaming.c), sent in a `message`. */
export const STREAMING_PLUGIN_REQUESTS = [
  'list',
  'info',
  'create',
  'edit',
  'destroy',
  'recording',
  'enable',
  'disable',
  'kick',
  'kick_all',
  'watch',
  'start',
  'pause',
  'configure',
  'switch',
  'stop',
] as const;

type JanusKey =
  | Exclude<(typeof JANUS_CORE_REQUESTS)[number], 'attach' | 'message'>
  | 'attach streaming'
  | 'attach videoroom'
  | `message ${(typeof STREAMING_PLUGIN_REQUESTS)[number]}`
  | 'message configure playout-delay';

/** Forwarded on the socket's own session and handle; `other`'s, on the holder's, refused. */
const OWN_SESSION: Row<JanusOutcome> = { other: 'refused', rest: 'forwarded' };
const REFUSED: Row<JanusOutcome> = { rest: 'refused' };

/**
 * /janus: members who accepted the terms, each on the Janus sessions and handles their own
 * socket created (janus-guard.ts), watching only with the car's PIN. `other` sends every request
 * that names a session on the holder's (the holder watching on a socket of their own).
 */
export const JANUS_SOCKET: { open: Row<OpenOutcome>; requests: Record<JanusKey, Row<JanusOutcome>> } = {
  open: {
    anonymous: '401',
    banned: '401 banned',
    incomplete: '403 registrationIncomplete',
    car: '401',
    rest: 'open',
  },
  requests: {
    create: { rest: 'forwarded' },
    'attach streaming': OWN_SESSION,
    // Only the streaming plugin: no room, no call, no echo test.
    'attach videoroom': REFUSED,
    // The PIN each was shown: the holder's and an admin's open the stream; the PIN a demoted admin
    // saw was replaced when they lost the role; a member was shown none.
    'message watch': { holder: 'watching', admin: 'watching', other: 'refused', rest: 'wrong PIN' },
    'message start': OWN_SESSION,
    'message pause': OWN_SESSION,
    'message stop': OWN_SESSION,
    // The plugin's admin requests never reach Janus from a browser.
    'message list': REFUSED,
    'message info': REFUSED,
    'message create': REFUSED,
    'message edit': REFUSED,
    'message destroy': REFUSED,
    'message recording': REFUSED,
    'message enable': REFUSED,
    'message disable': REFUSED,
    'message kick': REFUSED,
    'message kick_all': REFUSED,
    // `configure` only with a playout delay (the player asks for none), on the socket's own handle.
    'message configure': REFUSED,
    'message configure playout-delay': OWN_SESSION,
    'message switch': REFUSED,
    trickle: OWN_SESSION,
    keepalive: OWN_SESSION,
    info: REFUSED,
    ping: REFUSED,
    claim: REFUSED,
    hangup: OWN_SESSION,
    detach: OWN_SESSION,
    destroy: OWN_SESSION,
  },
};

/**
 * The sockets the banned member, the demoted admin and the former holder opened before the
 * change, while they still could: a ban closes all of a member's sockets (force_disconnect first
 * on the event socket), a demotion the video ones (they were let in to watch with PINs shown to
 * admins), the end of a driving session the driver's control socket, and the drive channel with
 * it.
 */
export const SOCKETS_HELD_ACROSS_THE_CHANGE: {
  banned: Record<'event' | 'janus', HeldOutcome>;
  demoted: Record<'event' | 'janus', HeldOutcome>;
  former: Record<'controller' | 'drive channel', HeldOutcome>;
} = {
  banned: { event: 'closed 4004 banned', janus: 'closed 4004 banned' },
  demoted: { event: 'open', janus: 'closed 4006 role_changed' },
  former: { controller: 'closed 4001 kicked', 'drive channel': 'closed' },
};

/** A socket (or the drive channel) still answering, or closed with its code and reason. */
type HeldOutcome =
  | 'open'
  | 'closed'
  | 'closed 4001 kicked'
  | 'closed 4004 banned'
  | 'closed 4006 role_changed';
