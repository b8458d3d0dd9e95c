/**
 * The driver's control connection (spec §7 "Control socket"):
 * `/rcsocket?type=controller&car={id}&control_token={t}&token={access}`. It says its protocol
 * version on open (`hello`; outdated-page.ts says what an `incompatible` answer does). It
 * reconnects on its own (ReconnectingSocket's loop and backoff), measures the round trip shown as
 * the ping readout (`controller-ping`: three once the page is idle after the socket opens, then
 * every 15 s; the readout is the median of the last five), sends `drive` only
 * when the values change, and keeps the car's last telemetry. Drives are numbered (`seq`) and go
 * over the drive channel while it works (drive-channel.ts, issue 27), otherwise over the socket;
 * while the channel is open the current drive goes out again DRIVE_CHANNEL.repeatMs after the
 * last one (a lost one is replaced), and when the channel stops working the current drive goes
 * over the socket at once. A server without the drive channel says so once per connection
 * (errors.driveChannelOff, not shown): the socket alone drives on that connection. The access
 * token is read at each (re)connection, so a renewed token is used; a token refreshed while
 * connected goes to the open socket (`auth {token}`), a fresh one is fetched shortly before the
 * socket's token expires, and a `tokenExpired` close reconnects with a fresh one.
 */
import {
  type Backoff,
  type ControllerMessage,
  ControllerServerMessage,
  DRIVE_CHANNEL,
  ERROR_KEYS,
  SOCKET_CLOSE_CODES,
  type Telemetry,
  TIMERS_MS,
} from '@telerace/protocol';
import { onTokenChange, refreshAccessToken } from './auth-client';
import { DriveChannel, type PeerFactory } from './drive-channel';
import { clampUnit } from './input-merge';
import { HELLO, type OutdatedPage, outdatedPage } from './outdated-page';
import { type AttemptContext, ReconnectingSocket, type SocketClose } from './reconnecting-socket';
import { RoundTrips, whenPageIdle } from './round-trips';
import { SocketTokenLease } from './socket-token';
import { type SocketFactory, socketUrl } from './socket-url';
import { StateStore } from './state-store';

export const CONTROL_SOCKET_PATH = '/rcsocket';

export type ControlConnection = 'connecting' | 'connected' | 'disconnected';

/**
 * Closes after which trying again cannot help: the session ended, another page took the car, the
 * member was signed out (every session, or this one), or the server does not speak this page's
 * protocol (a reload is asked for; the driving session itself goes on). A roleChanged close
 * reconnects.
 */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  SOCKET_CLOSE_CODES.replaced,
  SOCKET_CLOSE_CODES.sessionEnded,
  SOCKET_CLOSE_CODES.carRevoked,
  SOCKET_CLOSE_CODES.forceDisconnect,
  SOCKET_CLOSE_CODES.sessionRevoked,
  SOCKET_CLOSE_CODES.incompatible,
]);

export interface ControlEnd {
  code: number;
  /** The server's close reason (`kicked`, `session_expired`…), may be empty. */
  reason: string;
}

/** The first round trips of a connection: a few, close together, so the readout settles at once. */
export const FIRST_PINGS = { count: 3, everyMs: 300 } as const;

export interface ControlState {
  connection: ControlConnection;
  /** The median of the last round trips in ms (RoundTrips), null before the first answer. */
  pingMs: number | null;
  telemetry: Telemetry | null;
  /** When the telemetry arrived (ms since epoch). */
  telemetryAt: number | null;
  /** Whether the car itself is connected to the server, null until the server says. */
  carOnline: boolean | null;
  /** The server's last error (refused message, rate limit…): its text and its i18n key. */
  error: { text: string; errorKey: string } | null;
  /** Connection attempts in a row that closed without ever opening (refused: bad or expired code…). */
  failedAttempts: number;
  /** Whether a connection ever opened: a drop after that is a reconnection, not a first attempt. */
  everConnected: boolean;
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
  /** Told when the server does not speak this page's protocol (default: the app's). */
  outdated?: OutdatedPage;
  /** Runs the first ping once the page is idle; returns a cancel (default: whenPageIdle). */
  whenIdle?: (run: () => void) => () => void;
  /** The drive channel's peer connections (default: the browser's RTCPeerConnection; null: none). */
  createPeer?: PeerFactory | null;
  /** The drive channel's ICE servers (default: the video's, GET /api/video/ice-servers). */
  iceServers?: () => Promise<RTCIceServer[]>;
  /** The drive channel's retry delays (default: DRIVE_CHANNEL's). */
  driveChannelBackoff?: Backoff;
}

type Drive = { throttle: number; steer: number };

const INITIAL_STATE: ControlState = {
  connection: 'disconnected',
  pingMs: null,
  telemetry: null,
  telemetryAt: null,
  carOnline: null,
  error: null,
  failedAttempts: 0,
  everConnected: false,
  ended: null,
};

export class ControlSocket extends StateStore<ControlState> {
  private readonly link: ReconnectingSocket<ControllerServerMessage, ControllerMessage>;
  private pingTimer: ReturnType<typeof setTimeout> | undefined;
  private cancelFirstPing: (() => void) | undefined;
  private readonly roundTrips = new RoundTrips();
  private lastDrive: Drive | null = null;
  /** The number of the last drive sent, on either path (the server applies only newer ones). */
  private seq = 0;
  /** Whether the last drive went over the drive channel only. */
  private lastOnChannel = false;
  private repeatTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly channel: DriveChannel;
  private stopFollowingTokens: (() => void) | undefined;
  private readonly now: () => number;
  private readonly lease: SocketTokenLease;
  private readonly outdated: OutdatedPage;

  constructor(private readonly options: ControlSocketOptions) {
    super(INITIAL_STATE);
    this.now = options.now ?? (() => Date.now());
    this.outdated = options.outdated ?? outdatedPage;
    this.lease = new SocketTokenLease({
      now: this.now,
      getAccessToken: options.getAccessToken,
      renewToken: options.renewToken ?? refreshAccessToken,
      sendAuth: (token) => this.link.send({ type: 'auth', token }),
      onRenewed: (token) => this.lease.offer(token),
    });
    this.channel = new DriveChannel({
      signal: (message) => this.link.send(message),
      onChange: () => this.channelChanged(),
      createPeer: options.createPeer,
      iceServers: options.iceServers,
      backoff: options.driveChannelBackoff,
    });
    this.link = new ReconnectingSocket({
      name: 'Control socket',
      url: (context) => this.address(context),
      schema: ControllerServerMessage,
      terminalCloseCodes: FINAL_CLOSE_CODES,
      // The socket's token expired (or was refused): back at once with a fresh one.
      retryAtOnceCloseCodes: new Set([SOCKET_CLOSE_CODES.tokenExpired]),
      closeReason: 'controller left',
      onOpen: () => this.opened(),
      onMessage: (message) => this.receive(message),
      onClose: (close) => this.closed(close),
      createSocket: options.createSocket,
      backoff: options.backoff,
    });
  }

  start(): void {
    if (this.link.isRunning) return;
    this.stopFollowingTokens?.();
    this.stopFollowingTokens = (this.options.onTokenChange ?? onTokenChange)((token) => {
      if (token) this.lease.offer(token);
    });
    this.update({ connection: 'connecting' });
    this.link.start();
  }

  /** Closes for good: no reconnect. */
  stop(): void {
    this.stopFollowingTokens?.();
    this.stopFollowingTokens = undefined;
    this.link.close();
    this.dropConnection();
    this.update({ connection: 'disconnected' });
  }

  /** Sends `drive` when the (clamped) values differ from the last ones sent. Returns whether it sent. */
  sendDrive(throttle: number, steer: number): boolean {
    const next = { throttle: clampUnit(throttle), steer: clampUnit(steer) };
    if (this.lastDrive && this.lastDrive.throttle === next.throttle && this.lastDrive.steer === next.steer) {
      return false;
    }
    // A drive that stops the car goes over the socket too: it must arrive even if the channel
    // loses it and no repeat follows soon (a hidden tab's timers wait a second or more).
    const stops = next.throttle === 0 && this.lastDrive?.throttle !== 0;
    if (!this.transmit(next, stops ? 'stop' : 'drive')) return false;
    this.lastDrive = next;
    return true;
  }

  /**
   * One drive with the next number: on the drive channel while it works, else on the socket;
   * `stop`: on both. `probe`: the socket already delivered these values, so only the channel
   * gets them (its acknowledgement says the channel works). While the channel is open, the
   * current drive goes out again DRIVE_CHANNEL.repeatMs after the last one, so a lost packet is
   * replaced.
   */
  private transmit(drive: Drive, how: 'drive' | 'stop' | 'probe' = 'drive'): boolean {
    this.seq += 1;
    const numbered = { ...drive, seq: this.seq };
    const onChannel = this.channel.send(numbered);
    const onSocket =
      (how === 'stop' || (how === 'drive' && !onChannel)) && this.link.send({ type: 'drive', ...numbered });
    // Whether the drive now relies on the channel alone (the socket's copy always arrives).
    if (onSocket) this.lastOnChannel = false;
    else if (onChannel) this.lastOnChannel = true;
    const sent = onChannel || onSocket || how === 'probe';
    clearTimeout(this.repeatTimer);
    this.repeatTimer =
      sent && this.channel.isOpen
        ? setTimeout(
            () => this.transmit(drive, this.lastOnChannel ? 'drive' : 'probe'),
            DRIVE_CHANNEL.repeatMs,
          )
        : undefined;
    return sent;
  }

  /** The drive channel opened, closed, or started or stopped working. */
  private channelChanged(): void {
    const drive = this.lastDrive;
    if (!drive) return;
    // It carried the current drive and no longer can: the socket takes it now.
    if (this.lastOnChannel && !this.channel.isWorking) this.transmit(drive);
    // It just opened: a probe, whose acknowledgement says it works.
    else if (this.channel.isOpen && this.repeatTimer === undefined) this.transmit(drive, 'probe');
  }

  private ping(): void {
    this.link.send({ type: 'controller-ping', timestamp: this.now() });
  }

  /** FIRST_PINGS, then one every TIMERS_MS.controlPing, until the connection drops. */
  private startPinging(): void {
    let first: number = FIRST_PINGS.count;
    const next = () => {
      this.ping();
      first -= 1;
      this.pingTimer = setTimeout(next, first > 0 ? FIRST_PINGS.everyMs : TIMERS_MS.controlPing);
    };
    next();
  }

  /**
   * Each attempt's address, with the auth client's token. A token that expired (or that the
   * server just refused) would only be refused: a refresh comes first, and whatever token the
   * auth client then has is used (a refused one counts as a failed attempt).
   */
  private address({ after }: AttemptContext): string | Promise<string> {
    const current = this.options.getAccessToken();
    const refused = after?.code === SOCKET_CLOSE_CODES.tokenExpired;
    if (after === null || !this.lease.isStale(current, refused)) return this.urlFor(current);
    return this.lease.fresh().then((fresh) => this.urlFor(fresh ?? this.options.getAccessToken()));
  }

  private urlFor(accessToken: string | null): string {
    const token = accessToken ?? '';
    this.lease.connecting(token);
    return socketUrl(
      CONTROL_SOCKET_PATH,
      {
        type: 'controller',
        car: String(this.options.carId),
        control_token: this.options.controlToken,
        token,
      },
      this.options.location ?? window.location,
    );
  }

  private opened(): void {
    this.link.send(HELLO);
    this.lease.opened();
    // A token refreshed while connecting goes over now.
    const current = this.options.getAccessToken();
    if (current) this.lease.offer(current);
    // A new connection: the server knows nothing of what was sent on the last one.
    this.lastDrive = null;
    this.channel.start();
    this.update({ connection: 'connected', error: null, failedAttempts: 0, everConnected: true });
    this.cancelFirstPing = (this.options.whenIdle ?? whenPageIdle)(() => this.startPinging());
  }

  private closed(close: SocketClose): void {
    this.dropConnection();
    // Not the driving session's end: the page is out of date, and its banner asks for a reload.
    if (close.code === SOCKET_CLOSE_CODES.incompatible) {
      this.update({ connection: 'disconnected', pingMs: null });
      return;
    }
    if (close.final) {
      this.update({
        connection: 'disconnected',
        pingMs: null,
        ended: { code: close.code, reason: close.reason },
      });
      return;
    }
    const failedAttempts = close.opened ? 0 : this.state.failedAttempts + 1;
    this.update({ connection: 'connecting', pingMs: null, failedAttempts });
  }

  private receive(message: ControllerServerMessage): void {
    switch (message.type) {
      case 'controller-pong':
        if (message.timestamp !== undefined) {
          const sample = Math.max(0, Math.round(this.now() - message.timestamp));
          this.update({ pingMs: this.roundTrips.add(sample) });
        }
        break;
      case 'telemetry':
        this.update({ telemetry: message.telemetry, telemetryAt: this.now() });
        break;
      case 'car-status':
        this.update({ carOnline: message.online });
        break;
      case 'error':
        // Not the driver's concern: the socket drives as before, alone (off) or for a while (busy).
        if (message.errorKey === ERROR_KEYS.driveChannelOff) this.channel.serverOff();
        else if (message.errorKey === ERROR_KEYS.driveChannelBusy) this.channel.serverBusy();
        else this.update({ error: { text: message.error, errorKey: message.errorKey } });
        break;
      case 'incompatible':
        this.outdated.refused(message.reason);
        break;
      case 'rtc_answer':
        this.channel.answer(message.sdp);
        break;
      case 'auth_ok':
        break;
    }
  }

  private dropConnection(): void {
    this.cancelFirstPing?.();
    this.cancelFirstPing = undefined;
    clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    this.roundTrips.clear();
    this.lease.closed();
    this.channel.stop();
    clearTimeout(this.repeatTimer);
    this.repeatTimer = undefined;
    this.lastDrive = null;
    this.lastOnChannel = false;
  }
}
