/**
 * The one reconnect loop under the web app's sockets (the control socket, the event socket):
 * opens a WebSocket at an address read per attempt (so each attempt carries the newest access
 * token), tries again after the reconnect backoff when it closes, at once after the closes its
 * owner marks as fixed by a new attempt (an expired token), and never after a terminal close
 * (the session is over: retrying cannot help). Incoming messages are JSON checked against the
 * socket's protocol schema: anything else is logged and dropped, never handed on. Sends while not
 * open are dropped and reported as not sent. What a message means, and the token's life, stay
 * with the owner.
 */
import { Backoff, RECONNECT_BACKOFF } from '@telerace/protocol';
import type { ZodType } from 'zod';
import { RECONNECT_JITTER, RetryTimer } from './retry-timer';
import { browserSocket, SOCKET_OPEN, type SocketFactory, type SocketLike } from './socket-url';

/** WebSocket's normal closure. */
const NORMAL_CLOSE = 1000;

export interface SocketClose {
  code: number;
  /** The server's close reason, may be empty. */
  reason: string;
  /** Whether the socket had opened (false: the connection was refused or never came up). */
  opened: boolean;
  /** A terminal close: no attempt follows. */
  final: boolean;
}

export interface AttemptContext {
  /** The close that led to this attempt; null for the first one after `start`. */
  after: SocketClose | null;
}

/**
 * The address of one attempt. A promise makes the attempt wait (e.g. for a token refresh); null
 * means "not now": the next try comes after the backoff delay.
 */
export type SocketAddress = (context: AttemptContext) => string | null | Promise<string | null>;

export interface ReconnectingSocketOptions<Incoming> {
  /** Names the socket in logs. */
  name: string;
  url: SocketAddress;
  /** The protocol's schema of what the server sends on this socket. */
  schema: ZodType<Incoming>;
  /** Closes after which trying again cannot help: the socket stops for good. */
  terminalCloseCodes: ReadonlySet<number>;
  /** Closes a new attempt fixes by itself (an expired token): it starts at once, not after the backoff. */
  retryAtOnceCloseCodes?: ReadonlySet<number>;
  /** The reason sent when the page closes the socket (code 1000). */
  closeReason: string;
  onOpen?: () => void;
  onMessage: (message: Incoming) => void;
  /** Every close of a socket this class opened, except the page's own `close()`. */
  onClose?: (close: SocketClose) => void;
  createSocket?: SocketFactory;
  /** Default: the spec's reconnect delays with RECONNECT_JITTER. */
  backoff?: Backoff;
}

export class ReconnectingSocket<Incoming, Outgoing = unknown> {
  private socket: SocketLike | null = null;
  private running = false;
  /** Bumped by each attempt and by `close`, so an address that arrives late is not used. */
  private attemptId = 0;
  private readonly retry: RetryTimer;
  private readonly createSocket: SocketFactory;

  constructor(private readonly options: ReconnectingSocketOptions<Incoming>) {
    this.createSocket = options.createSocket ?? browserSocket;
    this.retry = new RetryTimer(
      options.backoff ?? new Backoff(RECONNECT_BACKOFF, { jitter: RECONNECT_JITTER }),
    );
  }

  /** Whether it is connected or trying to be (false after `close` or a terminal close). */
  get isRunning(): boolean {
    return this.running;
  }

  /** Whether a socket exists, opening or open. */
  get hasSocket(): boolean {
    return this.socket !== null;
  }

  get isOpen(): boolean {
    return this.socket?.readyState === SOCKET_OPEN;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.attempt(null);
  }

  /** Closes for good (until the next `start`): no reconnect, no callback. */
  close(): void {
    this.running = false;
    this.attemptId += 1;
    this.retry.cancel();
    this.retry.backoff.reset();
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
    socket.close(NORMAL_CLOSE, this.options.closeReason);
  }

  /** Sends when open; otherwise drops the message. Returns whether it was sent. */
  send(message: Outgoing): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== SOCKET_OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  private attempt(after: SocketClose | null): void {
    this.attemptId += 1;
    const id = this.attemptId;
    const current = () => this.running && id === this.attemptId;
    let address: ReturnType<SocketAddress>;
    try {
      address = this.options.url({ after });
    } catch (error) {
      console.error(`${this.options.name}: no address to connect to`, error);
      address = null;
    }
    if (!(address instanceof Promise)) {
      this.connect(address, after);
      return;
    }
    address.then(
      (url) => {
        if (current()) this.connect(url, after);
      },
      (error: unknown) => {
        if (!current()) return;
        console.error(`${this.options.name}: no address to connect to`, error);
        this.connect(null, after);
      },
    );
  }

  private connect(url: string | null, after: SocketClose | null): void {
    if (url === null) {
      this.retry.schedule(() => this.attempt(after));
      return;
    }
    const socket = this.createSocket(url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.retry.backoff.reset();
      this.options.onOpen?.();
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const final = this.options.terminalCloseCodes.has(event.code);
      if (final) this.running = false;
      const close: SocketClose = { code: event.code, reason: event.reason, opened, final };
      this.options.onClose?.(close);
      // The owner may have closed or restarted it from its callback.
      if (!this.running || this.socket || this.retry.pending) return;
      if (this.options.retryAtOnceCloseCodes?.has(event.code)) this.attempt(close);
      else this.retry.schedule(() => this.attempt(close));
    };
    socket.onerror = () => {
      // The close event that follows decides what comes next.
    };
  }

  private receive(data: unknown): void {
    let json: unknown;
    try {
      json = JSON.parse(String(data));
    } catch (error) {
      console.error(`${this.options.name}: unreadable message`, error);
      return;
    }
    const parsed = this.options.schema.safeParse(json);
    if (!parsed.success) {
      console.warn(`${this.options.name}: unexpected message dropped`, parsed.error.issues);
      return;
    }
    try {
      this.options.onMessage(parsed.data);
    } catch (error) {
      console.error(`${this.options.name}: handling a message failed`, error);
    }
  }
}
