/**
 * One connected car agent. After `hello` (and `welcome`) it carries drive commands: each one is
 * sent at once, and the last one is repeated every CONTROL_LIMITS.driveHeartbeatMs with a
 * growing `seq`, so the car's dead-man timer (500 ms) only fires when the server is gone.
 * `stop()` sends `stop` and ends the repetition until the next drive.
 */
import {
  CAR_PROTOCOL_VERSION,
  CarAgentMessage,
  type CarConfig,
  CONTROL_LIMITS,
  type ServerCarMessage,
  SOCKET_CLOSE_CODES,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import {
  closeIfTooBig,
  type DropCounters,
  MessageRateLimit,
  parseMessage,
  sendJson,
} from './message-guard.js';

const CAR_MESSAGE_TYPES = ['hello', 'telemetry', 'pong'] as const;
/** A car that has not said hello by then is dropped. */
const HELLO_TIMEOUT_MS = 5_000;
/** Protocol pings to the car; a car silent for CAR_SILENCE_MS is treated as gone. */
const CAR_PING_MS = 1_000;
const CAR_SILENCE_MS = 5_000;

export interface CarLinkHandlers {
  /** Config to send in `welcome`; null when the car no longer exists. */
  config(): Promise<CarConfig | null>;
  onReady(link: CarLink): void;
  onTelemetry(link: CarLink, telemetry: Telemetry): void;
  onClose(link: CarLink): void;
}

export class CarLink {
  ready = false;
  #seq = 0;
  #lastDrive: { throttle: number; steer: number } | null = null;
  #lastHeard = Date.now();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #rate = new MessageRateLimit();

  constructor(
    readonly carId: number,
    readonly socket: WebSocket,
    readonly handlers: CarLinkHandlers,
    readonly dropped: DropCounters,
    readonly log: FastifyBaseLogger,
  ) {
    const helloTimer = setTimeout(() => {
      if (!this.ready) this.close(SOCKET_CLOSE_CODES.policy, 'hello expected');
    }, HELLO_TIMEOUT_MS);
    this.#timers.push(
      helloTimer,
      setInterval(() => this.#heartbeat(), CONTROL_LIMITS.driveHeartbeatMs),
      setInterval(() => this.#checkAlive(), CAR_PING_MS),
    );
    socket.on('message', (data) => this.#onMessage(data));
    socket.on('pong', () => {
      this.#lastHeard = Date.now();
    });
    socket.on('error', (error) => log.warn({ err: error, carId }, 'car socket error'));
    socket.on('close', () => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.ready = false;
      handlers.onClose(this);
    });
  }

  send(message: ServerCarMessage): void {
    sendJson(this.socket, message, this.dropped);
  }

  /** Forwarded at once, then repeated by the heartbeat. */
  drive(throttle: number, steer: number): void {
    this.#lastDrive = { throttle, steer };
    if (this.ready) this.#sendDrive();
  }

  /** Neutral now; nothing is repeated until the next drive. */
  stop(): void {
    this.#lastDrive = null;
    if (this.ready) this.send({ type: 'stop' });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  #sendDrive(): void {
    if (!this.#lastDrive) return;
    this.#seq += 1;
    this.send({ type: 'drive', ...this.#lastDrive, seq: this.#seq });
  }

  #heartbeat(): void {
    if (this.ready) this.#sendDrive();
  }

  #checkAlive(): void {
    if (Date.now() - this.#lastHeard > CAR_SILENCE_MS) {
      this.log.warn({ carId: this.carId }, 'car silent, closing its socket');
      this.socket.terminate();
      return;
    }
    if (this.socket.readyState === 1) this.socket.ping();
  }

  #onMessage(data: Parameters<typeof parseMessage>[0]): void {
    this.#lastHeard = Date.now();
    if (closeIfTooBig(this.socket, data)) return;
    if (!this.#rate.allow()) {
      this.dropped.rateLimited += 1;
      this.close(SOCKET_CLOSE_CODES.policy, 'too many messages');
      return;
    }
    const message = parseMessage(data, CarAgentMessage, CAR_MESSAGE_TYPES, this.dropped);
    if (!message) return;
    switch (message.type) {
      case 'hello':
        this.#hello(message.protocolVersion, message.agentVersion).catch((error: unknown) => {
          this.log.error({ err: error, carId: this.carId }, 'car handshake failed');
          this.close(1011, 'handshake failed');
        });
        return;
      case 'telemetry': {
        if (!this.ready) return;
        const { type: _type, ...telemetry } = message;
        this.handlers.onTelemetry(this, telemetry);
        return;
      }
      case 'pong':
        return;
    }
  }

  async #hello(protocolVersion: number, agentVersion: string): Promise<void> {
    if (this.ready) return;
    if (protocolVersion !== CAR_PROTOCOL_VERSION) {
      this.send({
        type: 'incompatible',
        reason: `The server speaks car protocol ${CAR_PROTOCOL_VERSION}, the agent ${protocolVersion}. Update the car agent.`,
      });
      this.close(SOCKET_CLOSE_CODES.incompatible, 'incompatible protocol');
      return;
    }
    const config = await this.handlers.config();
    if (!config) {
      this.close(SOCKET_CLOSE_CODES.carRevoked, 'car deleted');
      return;
    }
    if (this.socket.readyState !== 1) return;
    this.send({ type: 'welcome', config });
    this.ready = true;
    this.log.info({ carId: this.carId, agentVersion }, 'car connected');
    this.handlers.onReady(this);
    // A drive that arrived during the handshake goes out now.
    this.#sendDrive();
  }
}
