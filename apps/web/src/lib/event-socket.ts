/**
 * The race event socket (spec §4 "Event socket", §7 "Sockets"): one connection per session to
 * `/api/race-ws?token=…`. Connecting again with the token in use is ignored; a different token
 * replaces the connection. On open it asks for the current state and measures latency every 2 s
 * (`ping` → `pong`, then reports it with `ping_update`). Every parsed message goes to every
 * subscriber; unparsable ones are only logged. Sends while not open are dropped with a warning.
 * A connection lost while the session still wants it is retried with the reconnect backoff (not
 * after a `force_disconnect` close: that token is revoked).
 */
import { type EventClientMessage, SOCKET_CLOSE_CODES, TIMERS_MS } from '@telerace/protocol';
import { createBackoff } from './backoff';
import { browserSocket, SOCKET_OPEN, type SocketFactory, type SocketLike, socketUrl } from './socket-url';

export const EVENT_SOCKET_PATH = '/api/race-ws';

/** Incoming messages are JSON objects with a `type`; the race issue adds more than the protocol lists today. */
export type EventMessage = { type: string } & Record<string, unknown>;
export type EventListener = (message: EventMessage) => void;

export interface EventSocketOptions {
  createSocket?: SocketFactory;
  location?: Pick<Location, 'protocol' | 'host'>;
  now?: () => number;
}

export class EventSocketManager {
  private socket: SocketLike | null = null;
  private token: string | null = null;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<EventListener>();
  private readonly backoff = createBackoff();
  private readonly createSocket: SocketFactory;
  private readonly location: Pick<Location, 'protocol' | 'host'> | undefined;
  private readonly now: () => number;
  /** Last measured round trip in ms, null before the first pong. */
  latency: number | null = null;

  constructor(options: EventSocketOptions = {}) {
    this.createSocket = options.createSocket ?? browserSocket;
    this.location = options.location;
    this.now = options.now ?? (() => Date.now());
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
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.backoff.reset();
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
      this.clearConnection();
      // The server revoked the member's sessions: this token will not be let in again.
      if (event.code === SOCKET_CLOSE_CODES.forceDisconnect) return;
      // Otherwise the session still wants a connection: try again later.
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        if (this.token === token && !this.socket) this.open();
      }, this.backoff.next());
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

  private clearConnection(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.socket = null;
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
