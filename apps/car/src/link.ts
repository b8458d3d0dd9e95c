/**
 * The car's socket to the server: dials `/rcsocket?type=car&car=ID` with the car secret in the
 * Authorization header, says hello with the protocol version, validates every message, answers
 * pings, and reconnects with backoff for as long as the agent runs. A server that refuses the
 * protocol version says why (`incompatible {reason}`): an agent too old for the server waits
 * long between attempts, since only an update helps. It never logs the secret.
 */
import { EventEmitter } from 'node:events';
import {
  Backoff,
  CAR_PROTOCOL_VERSION,
  type CarAgentMessage,
  type CarConfig,
  CONTROL_LIMITS,
  type IncompatibleReason,
  ServerCarMessage,
} from '@telerace/protocol';
import WebSocket from 'ws';

export interface LinkOptions {
  /** Server base URL: http(s):// or ws(s)://, with or without a path prefix. */
  server: string;
  carId: string;
  secret: string;
  agentVersion: string;
  /** What the agent can do beyond driving, said in every hello (`passes`: it reports finish-line crossings). */
  capabilities: { passes: boolean };
  log: (line: string) => void;
  backoff?: Backoff;
  /** A socket silent for this long (no data, no pong) is considered dead and dropped. */
  livenessMs?: number;
}

type Forwarded = Exclude<ServerCarMessage, { type: 'welcome' | 'incompatible' | 'error' }>;

/**
 * Between attempts once the server said this agent is too old: reconnecting cannot help until
 * the agent is updated, and a fleet of outdated cars must not hammer the server.
 */
export const TOO_OLD_RETRY_MS = 10 * 60_000;

/** The log line for each refusal (an operator reads it on the car). */
function incompatibleLine(reason: IncompatibleReason, supported: { min: number; max: number }): string {
  const range = supported.min === supported.max ? `${supported.min}` : `${supported.min}–${supported.max}`;
  return reason === 'client_too_old'
    ? `server refused this agent: it is too old (car protocol ${CAR_PROTOCOL_VERSION}, the server accepts ${range}); update the car agent`
    : `server refused this agent: the server is older (it accepts car protocol ${range}, this agent speaks ${CAR_PROTOCOL_VERSION}); update the server`;
}

interface LinkEvents {
  /**
   * `driveChannel`: the server answers the agent's drive channel offers; `linkPings`: it answers
   * link pings (a server that speaks of the drive channel at all, either way).
   */
  welcome: [CarConfig, { driveChannel: boolean; linkPings: boolean }];
  /** The server refused a message (`error`), by its key. */
  refused: [string | undefined];
  message: [Forwarded];
  close: [];
}

/** The car socket URL for a server base URL (http→ws, https→wss). */
export function carSocketUrl(server: string, carId: string): URL {
  const url = new URL(server);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`server URL must be http(s):// or ws(s)://, not ${url.protocol}`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/rcsocket`;
  url.search = new URLSearchParams({ type: 'car', car: carId }).toString();
  url.hash = '';
  return url;
}

export class CarLink extends EventEmitter<LinkEvents> {
  private readonly backoff: Backoff;
  private readonly url: URL;
  private socket: WebSocket | undefined;
  private retry: NodeJS.Timeout | undefined;
  private liveness: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Set when retrying fast cannot help; cleared by the next welcome. */
  private slowRetry = false;
  /** Set when the server said this agent is too old; cleared by the next welcome. */
  private tooOld = false;
  private welcomed = false;
  private droppedCount = 0;

  constructor(private readonly options: LinkOptions) {
    super();
    this.backoff = options.backoff ?? new Backoff();
    this.url = carSocketUrl(options.server, options.carId);
  }

  connect(): void {
    if (this.stopped || this.socket) return;
    const socket = new WebSocket(this.url, {
      headers: { Authorization: `Bearer ${this.options.secret}` },
      perMessageDeflate: false,
      maxPayload: CONTROL_LIMITS.maxPayloadBytes,
      handshakeTimeout: 5_000,
    });
    this.socket = socket;
    this.welcomed = false;

    socket.on('open', () => {
      this.options.log(`connected to ${this.url.origin}`);
      this.touch();
      this.send({
        type: 'hello',
        protocolVersion: CAR_PROTOCOL_VERSION,
        agentVersion: this.options.agentVersion,
        capabilities: this.options.capabilities,
      });
    });
    socket.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()));
    socket.on('pong', () => this.touch());
    socket.on('error', (error) => {
      const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
      if (status === '401' || status === '403') {
        this.options.log('car secret refused (HTTP 401): check CAR_SECRET; retrying slowly');
        this.slowRetry = true;
      } else {
        this.options.log(`socket error: ${error.message}`);
      }
    });
    socket.on('close', () => this.closed(socket));
  }

  /** Sends a message if the socket is open; returns whether it was sent. */
  send(message: CarAgentMessage): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  get isWelcomed(): boolean {
    return this.welcomed;
  }

  /** Messages dropped because they were not valid JSON or not a known server message. */
  get dropped(): number {
    return this.droppedCount;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1000, 'car agent stopping');
      setTimeout(() => socket.terminate(), 1_000).unref();
    });
  }

  private receive(text: string | null): void {
    let parsed: ServerCarMessage;
    try {
      const result = ServerCarMessage.safeParse(text === null ? undefined : JSON.parse(text));
      if (!result.success) throw new Error('invalid');
      parsed = result.data;
    } catch {
      this.droppedCount += 1;
      this.options.log(`dropped an invalid message from the server (${this.droppedCount} so far)`);
      return;
    }
    this.touch();
    switch (parsed.type) {
      case 'welcome':
        this.welcomed = true;
        this.slowRetry = false;
        this.tooOld = false;
        this.backoff.reset();
        this.options.log(`welcomed as car ${this.options.carId}`);
        this.emit('welcome', parsed.config, {
          driveChannel: parsed.driveChannel === true,
          linkPings: parsed.driveChannel !== undefined,
        });
        return;
      case 'incompatible':
        this.options.log(incompatibleLine(parsed.reason, parsed.supported));
        this.slowRetry = true;
        this.tooOld = parsed.reason === 'client_too_old';
        this.socket?.close(1000, 'incompatible');
        return;
      case 'error':
        this.options.log(`the server refused a message: ${parsed.error} (${parsed.errorKey})`);
        this.emit('refused', parsed.errorKey);
        return;
      default:
        this.emit('message', parsed);
    }
  }

  /**
   * A half-open TCP connection (Wi-Fi gone) closes nothing: after `livenessMs` without any data
   * the socket is pinged once, and dropped if the next period is silent as well.
   */
  private touch(): void {
    clearTimeout(this.liveness);
    const period = this.options.livenessMs ?? 5_000;
    this.liveness = setTimeout(() => {
      this.socket?.ping();
      this.liveness = setTimeout(() => {
        this.options.log('server silent, dropping the socket');
        this.socket?.terminate();
      }, period);
    }, period);
  }

  private closed(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.welcomed = false;
    clearTimeout(this.liveness);
    this.emit('close');
    if (this.stopped) return;
    const delay = this.tooOld ? TOO_OLD_RETRY_MS : this.slowRetry ? this.backoff.max() : this.backoff.next();
    this.options.log(`disconnected; reconnecting in ${delay} ms`);
    this.retry = setTimeout(() => this.connect(), delay);
  }
}
