/**
 * The driver's control connection (spec §7 "Control socket"):
 * `/rcsocket?type=controller&car={id}&control_token={t}&token={access}`. It reconnects on its own
 * with the reconnect backoff, sends `controller-ping` every 15 s (and once on open) to measure the
 * round trip shown as the ping readout, sends `drive` only when the values change, and keeps the
 * car's last telemetry. The access token is read at each (re)connection, so a renewed token is used;
 * a token refreshed while connected goes to the open socket (`auth {token}`), a fresh one is fetched
 * shortly before the socket's token expires, and a `tokenExpired` close reconnects with a fresh one.
 */
import {
  type CarConfig,
  type ControllerMessage,
  ControllerServerMessage,
  SOCKET_CLOSE_CODES,
  type Telemetry,
  TIMERS_MS,
} from '@telerace/protocol';
import { onTokenChange, refreshAccessToken } from './auth-client';
import { type Backoff, createBackoff } from './backoff';
import { clampUnit } from './input-merge';
import { isExpiring, isRenewalOf, TokenRenewal } from './socket-token';
import { browserSocket, SOCKET_OPEN, type SocketFactory, type SocketLike, socketUrl } from './socket-url';
import { StateStore } from './state-store';

export const CONTROL_SOCKET_PATH = '/rcsocket';

export type ControlConnection = 'connecting' | 'connected' | 'disconnected';

/**
 * Closes after which trying again cannot help: the session ended, another page took the car, or
 * the member was signed out (every session, or this one). A roleChanged close reconnects.
 */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  SOCKET_CLOSE_CODES.replaced,
  SOCKET_CLOSE_CODES.sessionEnded,
  SOCKET_CLOSE_CODES.carRevoked,
  SOCKET_CLOSE_CODES.forceDisconnect,
  SOCKET_CLOSE_CODES.sessionRevoked,
]);

export interface ControlEnd {
  code: number;
  /** The server's close reason (`kicked`, `session_expired`…), may be empty. */
  reason: string;
}

export interface ControlState {
  connection: ControlConnection;
  /** Last measured round trip in ms, null before the first answer. */
  pingMs: number | null;
  telemetry: Telemetry | null;
  /** When the telemetry arrived (ms since epoch). */
  telemetryAt: number | null;
  /** Whether the car itself is connected to the server, null until the server says. */
  carOnline: boolean | null;
  /** The server's last error text (refused connection, rate limit…). */
  error: string | null;
  /** Connection attempts in a row that closed without ever opening (refused: bad or expired code…). */
  failedAttempts: number;
  /** Set when the server ended the connection for good; no reconnect follows. */
  ended: ControlEnd | null;
}

export interface ControlSocketOptions {
  carId: string | number;
  controlToken: string;
  /** Read at each connection attempt. */
  getAccessToken: () => string | null;
  /** Tells of every new access token (default: the app's auth client). */
  onTokenChange?: (listener: (token: string | null) => void) => () => void;
  /** Trades the refresh cookie for a new access token (default: the app's auth client). */
  renewToken?: () => Promise<string>;
  createSocket?: SocketFactory;
  location?: Pick<Location, 'protocol' | 'host'>;
  now?: () => number;
  backoff?: Backoff;
}

const INITIAL_STATE: ControlState = {
  connection: 'disconnected',
  pingMs: null,
  telemetry: null,
  telemetryAt: null,
  carOnline: null,
  error: null,
  failedAttempts: 0,
  ended: null,
};

export class ControlSocket extends StateStore<ControlState> {
  private socket: SocketLike | null = null;
  private stopped = true;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private lastDrive: { throttle: number; steer: number } | null = null;
  /** The token the server knows the current socket by (its URL's, or the last `auth`). */
  private socketToken: string | null = null;
  private stopFollowingTokens: (() => void) | undefined;
  private readonly createSocket: SocketFactory;
  private readonly now: () => number;
  private readonly backoff: Backoff;
  private readonly renewal: TokenRenewal;

  constructor(private readonly options: ControlSocketOptions) {
    super(INITIAL_STATE);
    this.createSocket = options.createSocket ?? browserSocket;
    this.now = options.now ?? (() => Date.now());
    this.backoff = options.backoff ?? createBackoff();
    this.renewal = new TokenRenewal(this.now, () => void this.renew());
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopFollowingTokens = (this.options.onTokenChange ?? onTokenChange)((token) => {
      if (token) this.authenticate(token);
    });
    this.open();
  }

  /** Closes for good: no reconnect. */
  stop(): void {
    this.stopped = true;
    this.stopFollowingTokens?.();
    this.stopFollowingTokens = undefined;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const socket = this.socket;
    this.dropSocket();
    if (socket) {
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      socket.onerror = null;
      socket.close(1000, 'controller left');
    }
    this.update({ connection: 'disconnected' });
  }

  /** Sends `drive` when the (clamped) values differ from the last ones sent. Returns whether it sent. */
  sendDrive(throttle: number, steer: number): boolean {
    const next = { throttle: clampUnit(throttle), steer: clampUnit(steer) };
    if (this.lastDrive && this.lastDrive.throttle === next.throttle && this.lastDrive.steer === next.steer) {
      return false;
    }
    if (!this.send({ type: 'drive', ...next })) return false;
    this.lastDrive = next;
    return true;
  }

  sendConfig(settings: CarConfig): boolean {
    return this.send({ type: 'config', settings });
  }

  private send(message: ControllerMessage): boolean {
    if (!this.socket || this.socket.readyState !== SOCKET_OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  private ping(): void {
    this.send({ type: 'controller-ping', timestamp: this.now() });
  }

  /** Hands a newer token of the same member to the open socket (`auth`). */
  private authenticate(token: string): void {
    if (!this.socket || this.socket.readyState !== SOCKET_OPEN || !isRenewalOf(token, this.socketToken))
      return;
    this.send({ type: 'auth', token });
    this.socketToken = token;
    this.renewal.track(token);
  }

  /** Shortly before the socket's token expires: a newer token, from the auth client or a refresh. */
  private async renew(): Promise<void> {
    const current = this.options.getAccessToken();
    if (current && isRenewalOf(current, this.socketToken)) {
      this.authenticate(current);
      return;
    }
    try {
      this.authenticate(await (this.options.renewToken ?? refreshAccessToken)());
    } catch {
      // Not renewed (offline, signed out): the server closes the socket at expiry, and the
      // tokenExpired close tries again.
    }
  }

  /**
   * After a tokenExpired close (or before reconnecting with an expired token): the auth client's
   * token if it is another, live one, else a refresh; then a new connection, which reads the token.
   */
  private async reconnectWithFreshToken(expired: string): Promise<void> {
    const current = this.options.getAccessToken();
    if (!current || current === expired || isExpiring(current, this.now(), 1_000)) {
      try {
        await (this.options.renewToken ?? refreshAccessToken)();
      } catch {
        // The next attempt uses whatever token the auth client has; a refused one counts as a failure.
      }
    }
    if (this.stopped || this.socket || this.reconnectTimer) return;
    this.open();
  }

  private open(): void {
    const { carId, controlToken, getAccessToken, location } = this.options;
    const token = getAccessToken() ?? '';
    const url = socketUrl(
      CONTROL_SOCKET_PATH,
      {
        type: 'controller',
        car: String(carId),
        control_token: controlToken,
        token,
      },
      location ?? window.location,
    );
    const socket = this.createSocket(url);
    this.socket = socket;
    this.socketToken = token;
    this.update({ connection: 'connecting' });
    let opened = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.backoff.reset();
      this.renewal.track(token);
      // A token refreshed while connecting goes over now.
      const current = getAccessToken();
      if (current) this.authenticate(current);
      // A new connection: the server knows nothing of what was sent on the last one.
      this.lastDrive = null;
      this.update({ connection: 'connected', error: null, failedAttempts: 0 });
      this.ping();
      this.pingTimer = setInterval(() => this.ping(), TIMERS_MS.controlPing);
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const lastToken = this.socketToken ?? token;
      this.dropSocket();
      if (this.stopped) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.stopped = true;
        this.update({
          connection: 'disconnected',
          pingMs: null,
          ended: { code: event.code, reason: event.reason },
        });
        return;
      }
      const failedAttempts = opened ? 0 : this.state.failedAttempts + 1;
      this.update({ connection: 'connecting', pingMs: null, failedAttempts });
      // The socket's token expired (or was refused): back at once with a fresh one.
      if (event.code === SOCKET_CLOSE_CODES.tokenExpired) {
        void this.reconnectWithFreshToken(lastToken);
        return;
      }
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        if (this.stopped) return;
        // An expired token would only be refused: renew it first.
        const current = this.options.getAccessToken() ?? '';
        if (isExpiring(current, this.now(), 1_000)) void this.reconnectWithFreshToken(current);
        else this.open();
      }, this.backoff.next());
    };
    socket.onerror = () => {
      // The close event that follows schedules the reconnect.
    };
  }

  private receive(data: unknown): void {
    let parsed: ReturnType<typeof ControllerServerMessage.safeParse>;
    try {
      parsed = ControllerServerMessage.safeParse(JSON.parse(String(data)));
    } catch (error) {
      console.error('Control socket: unreadable message', error);
      return;
    }
    if (!parsed.success) return;
    const message = parsed.data;
    switch (message.type) {
      case 'controller-pong':
        if (message.timestamp !== undefined) {
          this.update({ pingMs: Math.max(0, Math.round(this.now() - message.timestamp)) });
        }
        break;
      case 'telemetry':
        this.update({ telemetry: message.telemetry, telemetryAt: this.now() });
        break;
      case 'car-status':
        this.update({ carOnline: message.online });
        break;
      case 'error':
        this.update({ error: message.error });
        break;
      case 'config-saved':
      case 'auth-ok':
        break;
    }
  }

  private dropSocket(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.renewal.cancel();
    this.socket = null;
    this.socketToken = null;
    this.lastDrive = null;
  }
}
