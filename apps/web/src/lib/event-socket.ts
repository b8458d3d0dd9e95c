/**
 * The race event socket (spec §4 "Event socket", §7 "Sockets"): one connection per session to
 * `/api/race-ws?token=…`. Connecting again with the token in use is ignored; a different token
 * replaces the connection. On open it asks for the current state and measures latency every 2 s
 * (`ping` → `pong`, then reports it with `ping_update`). Every message that matches the
 * protocol's EventServerMessage goes to every subscriber; anything else is only logged. Sends while
 * not open are dropped with a warning. The reconnect loop is ReconnectingSocket's: a connection
 * lost while the session still wants it is retried with the reconnect backoff (not
 * after a `force_disconnect` or `sessionRevoked` close: that token is revoked, the user is signed
 * out). A newer token of the same member is handed to the open socket with `auth {token}` instead
 * of reconnecting, and a fresh one is fetched shortly before the socket's token expires; a
 * `tokenExpired` close reconnects at once with a fresh token.
 */
import {
  type EventClientMessage,
  EventServerMessage,
  SOCKET_CLOSE_CODES,
  TIMERS_MS,
} from '@telerace/protocol';
import { getAccessToken, refreshAccessToken } from './auth-client';
import type { Backoff } from './backoff';
import { type AttemptContext, ReconnectingSocket } from './reconnecting-socket';
import { isExpiring, isRenewalOf, TokenRenewal } from './socket-token';
import { type SocketFactory, socketUrl } from './socket-url';

export const EVENT_SOCKET_PATH = '/api/race-ws';

/** What subscribers receive: the server's messages as the protocol defines them. */
export type EventMessage = EventServerMessage;
export type EventListener = (message: EventMessage) => void;

export interface EventSocketOptions {
  createSocket?: SocketFactory;
  location?: Pick<Location, 'protocol' | 'host'>;
  now?: () => number;
  /** The auth client's current token (default: the app's). */
  getAccessToken?: () => string | null;
  /** Trades the refresh cookie for a new access token (default: the app's auth client). */
  renewToken?: () => Promise<string>;
  backoff?: Backoff;
}

/** Closes after which this socket does not come back by itself: the session is over. */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([
  SOCKET_CLOSE_CODES.forceDisconnect,
  SOCKET_CLOSE_CODES.sessionRevoked,
]);

export class EventSocketManager {
  private readonly link: ReconnectingSocket<EventServerMessage, EventClientMessage>;
  private token: string | null = null;
  /** The token the server knows the current socket by (its URL's, or the last `auth`). */
  private socketToken: string | null = null;
  /** The token of the socket that closed last (the one a tokenExpired close refused). */
  private closedToken: string | null = null;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private readonly listeners = new Set<EventListener>();
  private readonly location: Pick<Location, 'protocol' | 'host'> | undefined;
  private readonly now: () => number;
  private readonly getAccessToken: () => string | null;
  private readonly renewToken: () => Promise<string>;
  private readonly renewal: TokenRenewal;
  /** Last measured round trip in ms, null before the first pong. */
  latency: number | null = null;

  constructor(options: EventSocketOptions = {}) {
    this.location = options.location;
    this.now = options.now ?? (() => Date.now());
    this.getAccessToken = options.getAccessToken ?? getAccessToken;
    this.renewToken = options.renewToken ?? refreshAccessToken;
    this.renewal = new TokenRenewal(this.now, () => void this.renew());
    this.link = new ReconnectingSocket({
      name: 'Event socket',
      url: (context) => this.address(context),
      schema: EventServerMessage,
      // The server revoked the member's sessions, or this one (log-out): nothing to come back to.
      terminalCloseCodes: NO_RECONNECT_CODES,
      // The socket's token expired (or was refused): back at once with a fresh one.
      retryAtOnceCloseCodes: new Set([SOCKET_CLOSE_CODES.tokenExpired]),
      closeReason: 'client disconnect',
      onOpen: () => this.opened(),
      onMessage: (message) => this.receive(message),
      onClose: () => {
        this.closedToken = this.socketToken;
        this.clearConnection();
      },
      createSocket: options.createSocket,
      backoff: options.backoff,
    });
  }

  /** The token of the current (or pending) connection, null when disconnected. */
  get currentToken(): string | null {
    return this.token;
  }

  get isOpen(): boolean {
    return this.link.isOpen;
  }

  connect(token: string): void {
    if (token === this.token && this.link.hasSocket) return;
    // A refreshed token of the same member: the open (or opening) socket carries on with it.
    if (this.link.hasSocket && isRenewalOf(token, this.token)) {
      this.token = token;
      this.authenticate();
      return;
    }
    this.teardown();
    this.token = token;
    this.link.start();
  }

  disconnect(): void {
    this.teardown();
    this.token = null;
  }

  send(message: EventClientMessage): void {
    if (!this.link.send(message)) console.warn('Event socket not open; message dropped', message.type);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Each attempt's address, with the session's token. After a tokenExpired close, or when the
   * token expired while waiting, a fresh token comes first; without one the attempt waits for the
   * next backoff delay.
   */
  private address({ after }: AttemptContext): string | null | Promise<string | null> {
    const token = this.token;
    if (!token) return null;
    const refused = after?.code === SOCKET_CLOSE_CODES.tokenExpired;
    if (!refused && !(after && isExpiring(token, this.now(), 1_000))) return this.urlFor(token);
    return this.freshToken(refused ? (this.closedToken ?? token) : token).then((fresh) => {
      if (!fresh) return null;
      this.token = fresh;
      return this.urlFor(fresh);
    });
  }

  private urlFor(token: string): string {
    this.socketToken = token;
    return socketUrl(EVENT_SOCKET_PATH, { token }, this.location ?? window.location);
  }

  private opened(): void {
    if (this.socketToken) this.renewal.track(this.socketToken);
    // A token refreshed while connecting goes over now.
    this.authenticate();
    this.send({ type: 'get_current_state' });
    this.ping();
    this.pingTimer = setInterval(() => this.ping(), TIMERS_MS.latencyPing);
  }

  private receive(message: EventServerMessage): void {
    if (message.type === 'pong') {
      this.latency = Math.max(0, this.now() - message.timestamp);
      this.send({ type: 'ping_update', latency: Math.min(60_000, Math.round(this.latency)) });
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(message);
      } catch (error) {
        console.error('Event socket subscriber failed', error);
      }
    }
  }

  private ping(): void {
    this.send({ type: 'ping', timestamp: this.now() });
  }

  /** Hands the newest token to the open socket (`auth`), if the server does not have it yet. */
  private authenticate(): void {
    const token = this.token;
    if (!token || !this.link.isOpen || token === this.socketToken) return;
    this.send({ type: 'auth', token });
    this.socketToken = token;
    this.renewal.track(token);
  }

  /** Shortly before the socket's token expires: a newer token, from the auth client or a refresh. */
  private async renew(): Promise<void> {
    const current = this.getAccessToken();
    if (current && isRenewalOf(current, this.socketToken)) {
      this.connect(current);
      return;
    }
    try {
      this.connect(await this.renewToken());
    } catch {
      // Not renewed (offline, signed out): the server closes the socket at expiry, and the
      // tokenExpired close tries again.
    }
  }

  /** A live token that is not `expired`: the auth client's, else a refresh; null if neither. */
  private async freshToken(expired: string): Promise<string | null> {
    const current = this.getAccessToken();
    if (current && current !== expired && !isExpiring(current, this.now(), 1_000)) return current;
    try {
      return await this.renewToken();
    } catch {
      return null;
    }
  }

  private clearConnection(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.renewal.cancel();
    this.socketToken = null;
    this.latency = null;
  }

  private teardown(): void {
    this.link.close();
    this.clearConnection();
  }
}

/** The app's one event socket. */
export const eventSocket = new EventSocketManager();
