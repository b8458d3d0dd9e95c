/**
 * One connected car agent. After `hello` (and `welcome`) it carries drive commands: each one is
 * sent at once, and the last one is repeated every CONTROL_LIMITS.driveHeartbeatMs with a
 * growing `seq`, so the car's dead-man timer (500 ms) only fires when the server is gone.
 * `stop()` sends `stop` and ends the repetition until the next drive. The socket itself (limits,
 * parsing, keepalive) is the kit's (sockets/).
 */
import {
  CAR_PROTOCOL_VERSION,
  type CarConfig,
  CONTROL_LIMITS,
  incompatibility,
  MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  type ServerCarMessage,
  SOCKET_CLOSE_CODES,
  type SupportedVersions,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { SocketConnection } from '../../sockets/socket-connection.js';

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

/** The car protocols this server speaks. */
const CAR_VERSIONS: SupportedVersions = {
  min: MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  max: CAR_PROTOCOL_VERSION,
};

export class CarLink {
  ready = false;
  #seq = 0;
  #lastDrive: { throttle: number; steer: number } | null = null;
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(
    readonly carId: number,
    readonly connection: SocketConnection,
    readonly handlers: CarLinkHandlers,
    readonly log: FastifyBaseLogger,
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
      this.ready = false;
      handlers.onClose(this);
    });
  }

  send(message: ServerCarMessage): void {
    this.connection.send(message);
  }

  /** Forwarded at once, then repeated by the heartbeat. */
  drive(throttle: number, steer: number): void {
    this.#lastDrive = { throttle, steer };
    if (this.ready) this.#sendDrive();
  }

  /**
   * Forwarded once and not repeated: a driver on another instance (scale-out) repeats it from
   * there, so the car's deadman trips when that instance or the link to it is gone.
   */
  driveOnce(throttle: number, steer: number): void {
    this.#lastDrive = null;
    if (!this.ready) return;
    this.#seq += 1;
    this.send({ type: 'drive', throttle, steer, seq: this.#seq });
  }

  /** Neutral now; nothing is repeated until the next drive. */
  stop(): void {
    this.#lastDrive = null;
    if (this.ready) this.send({ type: 'stop' });
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

  /** The handshake: a version in the supported range gets `welcome {config}`, any other `incompatible`. */
  async hello(protocolVersion: number, agentVersion: string): Promise<void> {
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
    this.send({ type: 'welcome', config });
    this.ready = true;
    this.log.info({ carId: this.carId, agentVersion }, 'car connected');
    this.handlers.onReady(this);
    // A drive that arrived during the handshake goes out now.
    this.#sendDrive();
  }

  #sendDrive(): void {
    if (!this.#lastDrive) return;
    this.#seq += 1;
    this.send({ type: 'drive', ...this.#lastDrive, seq: this.#seq });
  }

  #heartbeat(): void {
    if (this.ready) this.#sendDrive();
  }
}
