/**
 * One connected car agent. After `hello` (and `welcome`) it carries drive commands: each one is
 * sent at once, and the last one is repeated with a growing `seq` when nothing went to the car for
 * CONTROL_LIMITS.driveHeartbeatMs, so the car's dead-man timer (500 ms) only fires when the server
 * is gone. A car driven faster than the heartbeat hears no repetitions: with one timer per car, a
 * batch of cars' heartbeats due together wrote a frame each in one go (~30 µs apiece) and held up
 * the drives arriving meanwhile (issue 27's relay tail).
 * `stop()` sends `stop` and ends the repetition until the next drive. The socket itself (limits,
 * parsing, keepalive) is the kit's (sockets/).
 */
import { performance } from 'node:perf_hooks';
import {
  CAR_CHANNEL,
  CAR_PROTOCOL_VERSION,
  CarChannelAgentMessage,
  type CarConfig,
  CONTROL_LIMITS,
  ERROR_KEYS,
  incompatibility,
  MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  type ServerCarMessage,
  SOCKET_CLOSE_CODES,
  type SupportedVersions,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { HttpError } from '../../http/errors.js';
import type { LimitWindow } from '../../limit-window.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import type { DriveChannelConfig } from './control.config.js';
import { DriveChannel } from './drive-channel.js';

/**
 * A `drive` for the car as JSON text, written without building the message object first: the
 * relay sends one per command of the driver. The same text as JSON.stringify({type: 'drive',
 * throttle, steer, seq}) for the finite numbers the schemas let through (car-link.test.ts).
 */
export function driveFrame(throttle: number, steer: number, seq: number): string {
  return `{"type":"drive","throttle":${throttle},"steer":${steer},"seq":${seq}}`;
}

/** A drive sent this much less than a heartbeat period ago still makes the repetition unnecessary. */
const HEARTBEAT_SLACK_MS = 5;

/** A car that has not said hello by then is dropped. */
const HELLO_TIMEOUT_MS = 5_000;

export interface CarLinkHandlers {
  /** Config to send in `welcome`; null when the car no longer exists. */
  config(): Promise<CarConfig | null>;
  onReady(link: CarLink): void;
  onTelemetry(link: CarLink, telemetry: Telemetry): void;
  /** The car crossed its finish line at `at` (epoch ms, the car's clock). */
  onPass(link: CarLink, at: number): void;
  onClose(link: CarLink): void;
}

/** What a car's drive channel needs (issue 42): the server's settings and the offers' budget. */
export interface CarChannelAccess {
  clock: Clock;
  driveChannel: DriveChannelConfig;
  /** DRIVE_CHANNEL.offersPerMinute per key: the car's is `car:<id>`. */
  offers: LimitWindow<string>;
}

/** DRIVE_CHANNEL=off: the welcome says so, and an offer that comes anyway is refused. */
const carChannelOff = () =>
  new HttpError(404, 'This server has no drive channel: drive over this socket', ERROR_KEYS.driveChannelOff);

/** The car protocols this server speaks. */
const CAR_VERSIONS: SupportedVersions = {
  min: MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  max: CAR_PROTOCOL_VERSION,
};

export class CarLink {
  ready = false;
  /**
   * Whether the agent said in its hello that it reports its finish-line crossings; an agent that
   * says nothing of it (older than capabilities) does not (docs/races.md "Which lap counter").
   */
  reportsPasses = false;
  #seq = 0;
  /** The drive repeated by the heartbeat (`#driving`: there is one), kept as numbers: nothing is allocated per drive. */
  #driving = false;
  #throttle = 0;
  #steer = 0;
  /** `performance.now()` of the last drive sent to the car. */
  #lastSentAt = Number.NEGATIVE_INFINITY;
  readonly #timers: NodeJS.Timeout[] = [];
  /** The car's drive channel once it offered one; every drive and stop also goes there. */
  #channel: DriveChannel | null = null;

  constructor(
    readonly carId: number,
    readonly connection: SocketConnection,
    readonly handlers: CarLinkHandlers,
    readonly log: FastifyBaseLogger,
    readonly channelAccess: CarChannelAccess | null = null,
  ) {
    const helloTimer = setTimeout(() => {
      if (!this.ready) this.close(SOCKET_CLOSE_CODES.policy, 'hello expected');
    }, HELLO_TIMEOUT_MS);
    this.#timers.push(
      helloTimer,
      setInterval(() => this.#heartbeat(), CONTROL_LIMITS.driveHeartbeatMs),
    );
    connection.onClose(() => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#channel?.close();
      this.ready = false;
      handlers.onClose(this);
    });
  }

  send(message: ServerCarMessage): void {
    this.connection.send(message);
  }

  /** Forwarded at once, then repeated by the heartbeat. */
  drive(throttle: number, steer: number): void {
    this.#driving = true;
    this.#throttle = throttle;
    this.#steer = steer;
    if (this.ready) this.#sendDrive();
  }

  /**
   * Forwarded once and not repeated: a driver on another instance (scale-out) repeats it from
   * there, so the car's deadman trips when that instance or the link to it is gone.
   */
  driveOnce(throttle: number, steer: number): void {
    this.#driving = false;
    if (this.ready) this.#sendDriveOf(throttle, steer);
  }

  /**
   * Neutral now; nothing is repeated until the next drive. Numbered like the drives, on both
   * paths: a drive that comes late by the other path is older, and the car ignores it.
   */
  stop(): void {
    this.#driving = false;
    if (!this.ready) return;
    this.#seq += 1;
    const frame = JSON.stringify({ type: 'stop', seq: this.#seq });
    this.connection.sendText(frame);
    this.#channel?.sendText(frame);
  }

  /**
   * The car offers its drive channel (`rtc_offer`, issue 42); it replaces the previous one. The
   * car's candidates are not used: its checks reach the server's, and werift answers them where
   * they came from (the car is behind NAT, and the server sends nowhere a car's SDP names).
   */
  async offerDriveChannel(sdp: string): Promise<void> {
    const access = this.channelAccess;
    if (!this.ready) return;
    if (!access?.driveChannel.enabled) throw carChannelOff();
    const { enabled: _enabled, ...network } = access.driveChannel;
    this.#channel ??= new DriveChannel({
      clock: access.clock,
      log: this.log,
      network,
      owner: { keys: [`car:${this.carId}`], offers: access.offers },
      label: CAR_CHANNEL.label,
      remoteCandidates: false,
      answer: (answer) => this.send({ type: 'rtc_answer', sdp: answer }),
      onMessage: (data) => this.#channelMessage(data),
    });
    await this.#channel.offer(sdp);
  }

  close(code: number, reason: string): void {
    this.connection.close(code, reason);
  }

  /** A finish-line pass from a car that finished its handshake (the `car` lap counter). */
  pass(at: number): void {
    if (this.ready) this.handlers.onPass(this, at);
  }

  telemetry(telemetry: Telemetry): void {
    if (this.ready) this.handlers.onTelemetry(this, telemetry);
  }

  /** What the car sends on its channel: link pings, answered on the channel (anything else is dropped). */
  #channelMessage(data: Buffer): void {
    let message: CarChannelAgentMessage;
    try {
      const parsed = CarChannelAgentMessage.safeParse(JSON.parse(data.toString()));
      if (!parsed.success) return;
      message = parsed.data;
    } catch {
      return;
    }
    this.#channel?.send({ type: 'link-pong', t: message.t });
  }

  /** The handshake: a version in the supported range gets `welcome {config}`, any other `incompatible`. */
  async hello(
    protocolVersion: number,
    agentVersion: string,
    capabilities: { passes?: boolean | undefined } = {},
  ): Promise<void> {
    if (this.ready) return;
    const refused = incompatibility(protocolVersion, CAR_VERSIONS);
    if (refused) {
      this.log.warn({ carId: this.carId, agentVersion, protocolVersion, refused }, 'car agent refused');
      this.send({ type: 'incompatible', reason: refused, supported: CAR_VERSIONS });
      this.close(SOCKET_CLOSE_CODES.incompatible, refused);
      return;
    }
    let config: CarConfig | null;
    try {
      config = await this.handlers.config();
    } catch (error) {
      this.log.error({ err: error, carId: this.carId }, 'car handshake failed');
      this.close(1011, 'handshake failed');
      return;
    }
    if (!config) {
      this.close(SOCKET_CLOSE_CODES.carRevoked, 'car deleted');
      return;
    }
    if (!this.connection.isOpen) return;
    this.send({ type: 'welcome', config, driveChannel: this.channelAccess?.driveChannel.enabled === true });
    this.reportsPasses = capabilities.passes === true;
    this.ready = true;
    this.log.info({ carId: this.carId, agentVersion, reportsPasses: this.reportsPasses }, 'car connected');
    this.handlers.onReady(this);
    // A drive that arrived during the handshake goes out now.
    this.#sendDrive();
  }

  #sendDrive(): void {
    if (this.#driving) this.#sendDriveOf(this.#throttle, this.#steer);
  }

  /** The relay's hot path: the frame's text is written directly (driveFrame), no message object. */
  #sendDriveOf(throttle: number, steer: number): void {
    this.#seq += 1;
    this.#lastSentAt = performance.now();
    const frame = driveFrame(throttle, steer, this.#seq);
    this.connection.sendText(frame);
    this.#channel?.sendText(frame);
  }

  /**
   * Repeats the last drive unless one went out within the last period (HEARTBEAT_SLACK_MS early
   * counts: timers fire a little late, and a drive sent 99 ms ago is as fresh as one due now).
   * The car then hears the server at least every 2 periods (200 ms), inside its 500 ms deadman.
   */
  #heartbeat(): void {
    if (!this.ready) return;
    if (performance.now() - this.#lastSentAt < CONTROL_LIMITS.driveHeartbeatMs - HEARTBEAT_SLACK_MS) return;
    this.#sendDrive();
  }
}
