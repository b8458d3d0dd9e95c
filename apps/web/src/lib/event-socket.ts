/**
 * The race event socket (spec §4 "Event socket", §7 "Sockets"): one connection per session to
 * `/api/race-ws?token=…`. Connecting again with the token in use is ignored; a different token
 * replaces the connection. On open it says its protocol version (`hello`: a server that does
 * not speak it answers `incompatible`, and the page asks to be reloaded, outdated-page.ts), asks
 * for the current state and measures latency every 2 s
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
  type Backoff,
  type EventClientMessage,
  EventServerMessage,
  SOCKET_CLOSE_CODES,
  TIMERS_MS,
} from '@telerace/protocol';
import { getAccessToken, refreshAccessToken } from './auth-client';
import { HELLO, type OutdatedPage, outdatedPage } from './outdated-page';
import { type AttemptContext, ReconnectingSocket } from './reconnecting-socket';
import { isRenewalOf, SocketTokenLease } from './socket-token';
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
  /** Told when the server does not speak this page's protocol (default: the app's). */
  outdated?: OutdatedPage;
}

/**
 * Closes after which this socket does not come back by itself: the session is over, or the
 * server does not speak this page's protocol (a reload is asked for).
 */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([
  SOCKET_CLOSE_CODES.forceDisconnect,
  SOCKET_CLOSE_CODES.sessionRevoked,
  SOCKET_CLOSE_CODES.incompatible,
]);

export class EventSocketManager {
  private readonly link: ReconnectingSocket<EventServerMessage, EventClientMessage>;
  /** The session's token: the one to connect with (the socket's own is the lease's). */
  private token: string | null = null;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private readonly listeners = new Set<EventListener>();
  private readonly location: Pick<Location, 'protocol' | 'host'> | undefined;
  private readonly now: () => number;
  private readonly lease: SocketTokenLease;
  private readonly outdated: OutdatedPage;
  /** Last measured round trip in ms, null before the first pong. */
  latency: number | null = null;
  /** How many times the socket has opened: a new value is a new connection (a reconnect). */
  opens = 0;

  constructor(options: EventSocketOptions = {}) {
    this.location = options.location;
    this.now = options.now ?? (() => Date.now());
    this.outdated = options.outdated ?? outdatedPage;
    this.lease = new SocketTokenLease({
      now: this.now,
      getAccessToken: options.getAccessToken ?? getAccessToken,
      renewToken: options.renewToken ?? refreshAccessToken,
      sendAuth: (token) => this.link.send({ type: 'auth', token }),
      // Another member's token (not a renewal) replaces the connection.
      onRenewed: (token) => this.connect(token),
    });
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
      onClose: () => this.clearConnection(),
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
      this.lease.offer(token);
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
    if (after === null || !this.lease.isStale(token, refused)) return this.urlFor(token);
    return this.lease.fresh().then((fresh) => {
      if (!fresh) return null;
      this.token = fresh;
      return this.urlFor(fresh);
    });
  }

  private urlFor(token: string): string {
    this.lease.connecting(token);
    return socketUrl(EVENT_SOCKET_PATH, { token }, this.location ?? window.location);
  }

  private opened(): void {
    this.opens += 1;
    this.send(HELLO);
    this.lease.opened();
    // A token refreshed while connecting goes over now.
    if (this.token) this.lease.offer(this.token);
    this.send({ type: 'get_current_state' });
    this.ping();
    this.pingTimer = setInterval(() => this.ping(), TIMERS_MS.latencyPing);
  }

  private receive(message: EventServerMessage): void {
    if (message.type === 'incompatible') this.outdated.refused(message.reason);
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

  private clearConnection(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.lease.closed();
    this.latency = null;
  }

  private teardown(): void {
    this.link.close();
    this.clearConnection();
  }
}

/** The app's one event socket. */
export const eventSocket = new EventSocketManager();
