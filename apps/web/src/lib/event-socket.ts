/**
 * The race event socket (spec §4 "Event socket", §7 "Sockets"): one connection per session to
 * `/api/race-ws?token=…`. Connecting again with the token in use is ignored; a different token
 * replaces the connection. On open it asks for the current state and measures latency every 2 s
 * (`ping` → `pong`, then reports it with `ping_update`). Every parsed message goes to every
 * subscriber; unparsable ones are only logged. Sends while not open are dropped with a warning.
 * A connection lost while the session still wants it is retried with the reconnect backoff (not
 * after a `force_disconnect` or `sessionRevoked` close: that token is revoked, the user is signed
 * out). A newer token of the same member is handed to the open socket with `auth {token}` instead
 * of reconnecting, and a fresh one is fetched shortly before the socket's token expires; a
 * `tokenExpired` close reconnects at once with a fresh token.
 */
import { type EventClientMessage, SOCKET_CLOSE_CODES, TIMERS_MS } from '@telerace/protocol';
import { getAccessToken, refreshAccessToken } from './auth-client';
import { createBackoff } from './backoff';
import { isExpiring, isRenewalOf, TokenRenewal } from './socket-token';
import { browserSocket, SOCKET_OPEN, type SocketFactory, type SocketLike, socketUrl } from './socket-url';

export const EVENT_SOCKET_PATH = '/api/race-ws';

/** Incoming messages are JSON objects with a `type`; the race issue adds more than the protocol lists today. */
export type EventMessage = { type: string } & Record<string, unknown>;
export type EventListener = (message: EventMessage) => void;

export interface EventSocketOptions {
  createSocket?: SocketFactory;
  location?: Pick<Location, 'protocol' | 'host'>;
  now?: () => number;
  /** The auth client's current token (default: the app's). */
  getAccessToken?: () => string | null;
  /** Trades the refresh cookie for a new access token (default: the app's auth client). */
  renewToken?: () => Promise<string>;
}

/** Closes after which this socket does not come back by itself: the session is over. */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([
  SOCKET_CLOSE_CODES.forceDisconnect,
  SOCKET_CLOSE_CODES.sessionRevoked,
]);

export class EventSocketManager {
  private socket: SocketLike | null = null;
  private token: string | null = null;
  /** The token the server knows the current socket by (its URL's, or the last `auth`). */
  private socketToken: string | null = null;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<EventListener>();
  private readonly backoff = createBackoff();
  private readonly createSocket: SocketFactory;
  private readonly location: Pick<Location, 'protocol' | 'host'> | undefined;
  private readonly now: () => number;
  private readonly getAccessToken: () => string | null;
  private readonly renewToken: () => Promise<string>;
  private readonly renewal: TokenRenewal;
  /** Last measured round trip in ms, null before the first pong. */
  latency: number | null = null;

  constructor(options: EventSocketOptions = {}) {
    this.createSocket = options.createSocket ?? browserSocket;
    this.location = options.location;
    this.now = options.now ?? (() => Date.now());
    this.getAccessToken = options.getAccessToken ?? getAccessToken;
    this.renewToken = options.renewToken ?? refreshAccessToken;
    this.renewal = new TokenRenewal(this.now, () => void this.renew());
  }

  /** The token of the current (or pending) connection, null when disconnected. */
  get currentToken(): string | null {
    return this.token;
  }

  get isOpen(): boolean {
    return this.socket?.readyState === SOCKET_OPEN;
  }

  connect(token: string): void {
    if (token === this.token && this.socket) return;
    // A refreshed token of the same member: the open (or opening) socket carries on with it.
    if (this.socket && isRenewalOf(token, this.token)) {
      this.token = token;
      this.authenticate();
      return;
    }
    this.teardown();
    this.token = token;
    this.open();
  }

  disconnect(): void {
    this.teardown();
    this.token = null;
    this.backoff.reset();
  }

  send(message: EventClientMessage | EventMessage): void {
    if (!this.socket || this.socket.readyState !== SOCKET_OPEN) {
      console.warn('Event socket not open; message dropped', message.type);
      return;
    }
    this.socket.send(JSON.stringify(message));
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private open(): void {
    const token = this.token;
    if (!token) return;
    const url = socketUrl(EVENT_SOCKET_PATH, { token }, this.location ?? window.location);
    const socket = this.createSocket(url);
    this.socket = socket;
    this.socketToken = token;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.backoff.reset();
      this.renewal.track(token);
      // A token refreshed while connecting goes over now.
      this.authenticate();
      this.send({ type: 'get_current_state' });
      this.ping();
      this.pingTimer = setInterval(() => this.ping(), TIMERS_MS.latencyPing);
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const lastToken = this.socketToken ?? token;
      this.clearConnection();
      // The server revoked the member's sessions, or this one (log-out): nothing to come back to.
      if (NO_RECONNECT_CODES.has(event.code)) return;
      // The socket's token expired (or was refused): back at once with a fresh one.
      if (event.code === SOCKET_CLOSE_CODES.tokenExpired) {
        void this.reconnectWithFreshToken(lastToken);
        return;
      }
      // Otherwise the session still wants a connection: try again later.
      this.scheduleReconnect();
    };
    socket.onerror = () => {
      // A close event follows; nothing else to do.
    };
  }

  private receive(data: unknown): void {
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch (error) {
      console.error('Event socket: unreadable message', error);
      return;
    }
    if (!message || typeof message !== 'object' || typeof (message as EventMessage).type !== 'string') {
      console.error('Event socket: message without a type', message);
      return;
    }
    const event = message as EventMessage;
    if (event.type === 'pong' && typeof event.timestamp === 'number') {
      this.latency = Math.max(0, this.now() - event.timestamp);
      this.send({ type: 'ping_update', latency: Math.min(60_000, Math.round(this.latency)) });
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
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
    if (!token || !this.socket || this.socket.readyState !== SOCKET_OPEN || token === this.socketToken)
      return;
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

  /** After a tokenExpired close: a token that is not the expired one, then a new connection. */
  private async reconnectWithFreshToken(expired: string): Promise<void> {
    let fresh = this.getAccessToken();
    if (!fresh || fresh === expired || isExpiring(fresh, this.now(), 1_000)) {
      try {
        fresh = await this.renewToken();
      } catch {
        fresh = null;
      }
    }
    // Meanwhile the session ended (disconnect) or a new token already reconnected it.
    if (this.token === null || this.socket) return;
    if (fresh) {
      this.token = fresh;
      this.open();
      return;
    }
    this.scheduleReconnect();
  }

  /** A new connection after the backoff delay, with a renewed token if the current one expired. */
  private scheduleReconnect(): void {
    const current = this.token;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.token !== current || this.socket || current === null) return;
      // An expired token would only be refused: renew it first.
      if (isExpiring(current, this.now(), 1_000)) void this.reconnectWithFreshToken(current);
      else this.open();
    }, this.backoff.next());
  }

  private clearConnection(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.renewal.cancel();
    this.socket = null;
    this.socketToken = null;
    this.latency = null;
  }

  private teardown(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const socket = this.socket;
    this.clearConnection();
    if (socket) {
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      socket.onerror = null;
      socket.close(1000, 'client disconnect');
    }
  }
}

/** The app's one event socket. */
export const eventSocket = new EventSocketManager();
