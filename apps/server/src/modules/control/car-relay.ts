/**
 * Who is connected: one CarLink per car and at most one ControllerLink per car. It turns domain
 * events into socket actions — a session that ends stops its car at once and closes the driver's
 * control socket; a deleted car or a rotated secret closes the car's socket; revoked sessions
 * close the driver's control socket — and relays drive from the controller to the car and
 * telemetry back. Close reasons sent to a driver are DISCONNECT_REASONS.
 */
import {
  type CarConfig,
  type DisconnectReason,
  type ServerCarMessage,
  SOCKET_CLOSE_CODES,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus, EventHandlers } from '../../events.js';
import { LatencyHistogram } from '../../scale-out/metrics/latency-histogram.js';
import { type DropCounters, newDropCounters } from '../../sockets/message-guard.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import type { CarPresence } from '../cars/cars.presenter.js';
import { CarLink } from './car-link.js';
import { type ControllerAccess, ControllerLink } from './controller-link.js';

export interface CarRelayOptions {
  /** Config for a car's `welcome`; null when the car is gone. */
  carConfig(carId: number): Promise<CarConfig | null>;
}

export class CarRelay implements CarPresence {
  readonly #cars = new Map<number, CarLink>();
  readonly #controllers = new Map<number, ControllerLink>();
  readonly #telemetry = new Map<number, Telemetry & { at: string }>();
  /** Cars held at neutral (a race's countdown): their drivers' drives are not forwarded. */
  #neutral = new Set<number>();
  /** What each held car's driver asked for last, given to the car when the hold ends. */
  readonly #requested = new Map<number, { throttle: number; steer: number }>();
  /** Dropped messages of the car sockets and of the controller sockets. */
  readonly dropped: { car: DropCounters; controller: DropCounters } = {
    car: newDropCounters(),
    controller: newDropCounters(),
  };
  /** From a drive message's arrival to its forwarding to the car's socket (GET /metrics). */
  readonly driveLatency = new LatencyHistogram();

  constructor(
    readonly events: EventBus,
    readonly log: FastifyBaseLogger,
    readonly options: CarRelayOptions,
  ) {}

  /** What the relay does about each domain event (subscribed by the control module). */
  handlers(): EventHandlers {
    return {
      'car.session-ended': ({ carId, sessionId, reason }) => {
        this.#stop(carId);
        const controller = this.#controllers.get(carId);
        if (controller && controller.sessionId === sessionId) {
          this.#controllers.delete(carId);
          controller.close(SOCKET_CLOSE_CODES.sessionEnded, reason);
        }
      },
      'car.deleted': ({ carId }) => {
        this.#stop(carId);
        this.#cars.get(carId)?.close(SOCKET_CLOSE_CODES.carRevoked, 'car deleted');
        this.#controllers.get(carId)?.close(SOCKET_CLOSE_CODES.sessionEnded, 'car_deleted');
      },
      // Every session of the member ended (ban, deletion, password change, log-out everywhere): the
      // car stops and the control socket closes now, before the car session itself is ended.
      'user.sessions-revoked': ({ userId, reason }) => {
        for (const link of this.#controllersOf(userId))
          this.#detach(link, SOCKET_CLOSE_CODES.forceDisconnect, reason);
      },
      // One login session ended (log-out, refresh-token reuse): its sockets close.
      'session.revoked': ({ userId, sessionId }) => {
        for (const link of this.#controllersOf(userId))
          if (link.loginSessionId === sessionId)
            this.#detach(link, SOCKET_CLOSE_CODES.sessionRevoked, 'session_revoked');
      },
      'car.secret-rotated': ({ carId }) => {
        this.#cars.get(carId)?.close(SOCKET_CLOSE_CODES.carRevoked, 'secret rotated');
      },
      'car.config-changed': ({ carId, config }) => {
        const car = this.#cars.get(carId);
        if (car?.ready) car.send({ type: 'config', settings: config });
      },
      'car.command-requested': ({ carId, command }) => {
        const car = this.#cars.get(carId);
        if (car?.ready) car.send({ type: 'command', command });
      },
    };
  }

  isOnline(carId: number): boolean {
    return this.#cars.get(carId)?.ready ?? false;
  }

  /** The cars whose agent is connected and past its handshake. */
  onlineCarIds(): number[] {
    return [...this.#cars.values()].filter((link) => link.ready).map((link) => link.carId);
  }

  /** A message to the car's agent, if it is connected (video targets, …). */
  sendToCar(carId: number, message: ServerCarMessage): boolean {
    const car = this.#cars.get(carId);
    if (!car?.ready) return false;
    car.send(message);
    return true;
  }

  lastTelemetry(carId: number): (Telemetry & { at: string }) | null {
    return this.#telemetry.get(carId) ?? null;
  }

  /** A car agent authenticated at the upgrade; a previous connection of the same car is replaced. */
  attachCar(carId: number, connection: SocketConnection): CarLink {
    const previous = this.#cars.get(carId);
    const link = new CarLink(
      carId,
      connection,
      {
        config: () => this.options.carConfig(carId),
        onReady: () => {
          this.#controllers.get(carId)?.send({ type: 'car-status', online: true });
          this.events.emit('car.online', { carId });
        },
        onTelemetry: (_link, telemetry) => {
          this.#telemetry.set(carId, { ...telemetry, at: new Date().toISOString() });
          this.#controllers.get(carId)?.send({ type: 'telemetry', telemetry });
        },
        // A fact for whoever counts laps (the race module, on whichever instance runs it).
        onPass: (_link, at) => this.events.emit('lap.passed', { carId, at, source: 'car' }),
        onClose: (closed) => {
          if (this.#cars.get(carId) !== closed) return;
          this.#cars.delete(carId);
          this.#controllers.get(carId)?.send({ type: 'car-status', online: false });
          this.log.info({ carId }, 'car disconnected');
          this.events.emit('car.offline', { carId });
        },
      },
      this.log,
    );
    this.#cars.set(carId, link);
    previous?.close(SOCKET_CLOSE_CODES.replaced, 'replaced by a new connection');
    return link;
  }

  /** A driver holding the car; a previous control socket for the car is replaced. */
  attachController(
    carId: number,
    sessionId: number,
    connection: SocketConnection,
    access: ControllerAccess,
  ): ControllerLink {
    const previous = this.#controllers.get(carId);
    const link = new ControllerLink(carId, sessionId, access, connection, {
      onDrive: (_link, throttle, steer) => {
        if (this.#controllers.get(carId) !== link) return;
        if (!this.#neutral.has(carId)) {
          const car = this.#cars.get(carId);
          if (!car) return;
          car.drive(throttle, steer);
          this.driveLatency.observeSince(link.connection.receivedAt);
          return;
        }
        // The countdown: the car hears neutral (its deadman stays fed by the heartbeat).
        this.#requested.set(carId, { throttle, steer });
        this.#cars.get(carId)?.drive(0, 0);
      },
      onClose: (closed) => {
        if (this.#controllers.get(carId) !== closed) return;
        this.#controllers.delete(carId);
        // Safety: the driver is gone, the car goes to neutral now.
        this.#stop(carId);
      },
    });
    this.#controllers.set(carId, link);
    if (previous) {
      this.#stop(carId);
      previous.close(SOCKET_CLOSE_CODES.replaced, 'replaced by a new connection');
    }
    link.send({ type: 'car-status', online: this.isOnline(carId) });
    return link;
  }

  /**
   * A race's countdown: these cars go to neutral now and stay there whatever their drivers send,
   * still hearing the server (the heartbeat repeats the neutral drive, so no deadman trips).
   */
  holdNeutral(carIds: readonly number[]): void {
    this.#neutral = new Set(carIds);
    this.#requested.clear();
    for (const carId of carIds) this.#cars.get(carId)?.drive(0, 0);
  }

  /** The race is on: each held car gets what its driver asks for now (a driver holding W goes at once). */
  releaseNeutral(): void {
    const held = this.#neutral;
    this.#neutral = new Set();
    for (const carId of held) {
      const requested = this.#requested.get(carId);
      if (requested && this.#controllers.has(carId))
        this.#cars.get(carId)?.drive(requested.throttle, requested.steer);
    }
    this.#requested.clear();
  }

  #controllersOf(userId: number): ControllerLink[] {
    return [...this.#controllers.values()].filter((link) => link.user.id === userId);
  }

  /** The controller leaves now: the car goes to neutral, then its socket closes. */
  #detach(link: ControllerLink, code: number, reason: DisconnectReason): void {
    if (this.#controllers.get(link.carId) === link) {
      this.#controllers.delete(link.carId);
      this.#stop(link.carId);
    }
    link.close(code, reason);
  }

  #stop(carId: number): void {
    const car = this.#cars.get(carId);
    if (!car) return;
    car.stop();
  }

  /** Server shutdown: cars go to neutral, then every socket closes. */
  close(): void {
    for (const car of this.#cars.values()) {
      car.stop();
      car.close(1001, 'server shutting down');
    }
    for (const controller of this.#controllers.values()) controller.close(1001, 'server shutting down');
  }
}
