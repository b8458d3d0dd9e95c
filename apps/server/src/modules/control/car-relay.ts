/**
 * Who is connected: one CarLink per car and at most one ControllerLink per car. It turns domain
 * events into socket actions — a session that ends stops its car at once and closes the driver's
 * control socket; a deleted car or a rotated secret closes the car's socket; revoked sessions
 * (told by the member-sockets registry) stop the car and close the driver's control socket — and
 * relays drive from the controller to the car and
 * telemetry back. Close reasons sent to a driver are DISCONNECT_REASONS.
 *
 * Scale-out (issue 15): a car's agent may be on another instance than its driver; the cars held
 * elsewhere go through cross-instance-relay.ts, and a driver and a car on the same instance never
 * use the bridge. The countdown's neutral hold follows the `race.changed` fact on
 * every instance (the race engine runs on one), and is applied where the car is.
 */
import {
  type CarConfig,
  type ServerCarMessage,
  SOCKET_CLOSE_CODES,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { EventBus, EventHandlers } from '../../events.js';
import { LatencyHistogram } from '../../scale-out/metrics/latency-histogram.js';
import type { MemberSocketsOfKind, Revocation } from '../../sockets/member-sockets.js';
import { type DropCounters, newDropCounters } from '../../sockets/message-guard.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import type { CarPresence } from '../cars/cars.presenter.js';
import { type CarChannelAccess, CarLink } from './car-link.js';
import { type ControllerAccess, ControllerLink } from './controller-link.js';
import { CrossInstanceRelay, type LocalRelay } from './cross-instance-relay.js';
import { type DriveChannelThread, driveChannelThread } from './drive-channel-thread.js';
import type { RelayBridge } from './relay-bridge.js';

export interface CarRelayDeps {
  events: EventBus;
  log: FastifyBaseLogger;
  /** Config for a car's `welcome`; null when the car is gone. */
  carConfig(carId: number): Promise<CarConfig | null>;
  /** The controllers in the member-sockets registry, which closes them on revocations. */
  controllerSockets: MemberSocketsOfKind<ControllerLink>;
  /** Cars held by other instances (scale-out); by default there are none. */
  bridge?: RelayBridge;
}

/** A drive waiting for the end of the countdown; `once`: it came from another instance (not repeated here). */
interface RequestedDrive {
  throttle: number;
  steer: number;
  once: boolean;
}

export class CarRelay implements CarPresence {
  readonly #cars = new Map<number, CarLink>();
  readonly #controllers = new Map<number, ControllerLink>();
  readonly #telemetry = new Map<number, Telemetry & { at: string }>();
  /**
   * Whether each car's agent reports its finish-line crossings, as the last `car.online` fact said
   * (from this instance or another); kept while the car is offline, its agent being the same.
   */
  readonly #reportsPasses = new Map<number, boolean>();
  /** Told of each telemetry of a car held here (scale-out: its copy for the admin on any instance). */
  readonly #telemetryListeners = new Set<(carId: number, telemetry: Telemetry & { at: string }) => void>();
  /** Cars held by other instances, and cars held here driven from other instances. */
  readonly #crossInstance: CrossInstanceRelay;
  /** Whether a countdown holds cars at neutral (set by the engine's call or the `race.changed` fact). */
  #holding = false;
  /** Cars held at neutral (a race's countdown): their drivers' drives are not forwarded. */
  #neutral = new Set<number>();
  /** What each held car's driver asked for last, given to the car when the hold ends. */
  readonly #requested = new Map<number, RequestedDrive>();
  /** Dropped messages of the car sockets and of the controller sockets. */
  readonly dropped: { car: DropCounters; controller: DropCounters } = {
    car: newDropCounters(),
    controller: newDropCounters(),
  };
  /** From a drive message's arrival to its forwarding to the car's socket (GET /metrics). */
  readonly driveLatency = new LatencyHistogram();

  readonly events: EventBus;
  readonly log: FastifyBaseLogger;
  readonly options: CarRelayDeps;
  readonly #unsubscribeWorkerExits: () => void;

  constructor(deps: CarRelayDeps) {
    this.events = deps.events;
    this.log = deps.log;
    this.options = deps;
    this.#crossInstance = new CrossInstanceRelay(this.#localSide(), deps.bridge);
    // Every end of the drive channel worker is the server's fault, pending offer or not.
    this.#unsubscribeWorkerExits = driveChannelThread.onExit(({ reason, restartInMs }) =>
      this.log.error({ reason, restartInMs }, 'drive channel worker exited: its channels closed'),
    );
  }

  /** The drive channels of this process (GET /metrics): the worker's exits, its open peers, the candidates judged. */
  get driveChannels(): Pick<DriveChannelThread, 'counters' | 'openPeers'> {
    return driveChannelThread;
  }

  /** Drives that crossed instances (GET /metrics). */
  get remoteDrives(): { sent: number; forwarded: number } {
    return this.#crossInstance.remoteDrives;
  }

  /** What the cross-instance relay reads and does here. */
  #localSide(): LocalRelay {
    return {
      onlineCarIds: () => this.onlineCarIds(),
      hasCarSocket: (carId) => this.#cars.has(carId),
      controllers: () => this.#controllers.entries(),
      driveHere: (carId, throttle, steer, once) => this.#driveHere(carId, throttle, steer, once),
      stop: (carId) => this.#stop(carId),
      heardTelemetry: (carId, telemetry) => {
        this.#telemetry.set(carId, { ...telemetry, at: new Date().toISOString() });
        this.#controllers.get(carId)?.send({ type: 'telemetry', telemetry });
      },
    };
  }

  /** What the relay does about each domain event (subscribed by the control module). */
  handlers(): EventHandlers {
    return {
      'car.online': ({ carId, instance, passes }) => {
        this.#crossInstance.heardOnline(carId, instance);
        if (passes === undefined) this.#reportsPasses.delete(carId);
        else this.#reportsPasses.set(carId, passes);
        this.#controllers.get(carId)?.send({ type: 'car-status', online: this.isOnline(carId) });
      },
      'car.offline': ({ carId, instance }) => {
        this.#crossInstance.heardOffline(carId, instance);
        // A car that moved to another instance is still online there.
        if (!this.isOnline(carId)) this.#controllers.get(carId)?.send({ type: 'car-status', online: false });
      },
      // The countdown, on whichever instance runs the race engine: hold the cars held here.
      'race.changed': ({ state }) => {
        if (state.race_status === 'countdown') {
          if (!this.#holding) this.holdNeutral(state.participants.map((participant) => participant.carId));
        } else if (this.#holding) this.releaseNeutral();
      },
      'car.session-ended': ({ carId, sessionId, reason }) => {
        this.#stop(carId);
        const controller = this.#controllers.get(carId);
        if (controller && controller.sessionId === sessionId) {
          this.#controllers.delete(carId);
          controller.close(SOCKET_CLOSE_CODES.sessionEnded, reason);
        }
      },
      'car.deleted': ({ carId }) => {
        this.#reportsPasses.delete(carId);
        this.#stop(carId);
        this.#cars.get(carId)?.close(SOCKET_CLOSE_CODES.carRevoked, 'car deleted');
        this.#controllers.get(carId)?.close(SOCKET_CLOSE_CODES.sessionEnded, 'car_deleted');
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

  /** Whether the car can be driven from here: its agent is connected here, or to a reachable instance. */
  isOnline(carId: number): boolean {
    return this.holds(carId) || this.#crossInstance.isOnlineElsewhere(carId);
  }

  /** Whether this instance holds the car's socket, past its handshake (its video and messages go from here). */
  holds(carId: number): boolean {
    return this.#cars.get(carId)?.ready ?? false;
  }

  /**
   * Whether the car's agent reports its finish-line crossings (the `car` lap counter can count its
   * laps): its last hello heard since this process started, wherever it was; null when none was.
   */
  reportsPasses(carId: number): boolean | null {
    return this.#reportsPasses.get(carId) ?? null;
  }

  /** The cars whose agent is connected here and past its handshake. */
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

  /** The link figures of each car connected here, from its last telemetry (GET /metrics). */
  carLinks(): [number, Telemetry][] {
    const links: [number, Telemetry][] = [];
    for (const [carId, link] of this.#cars) {
      const telemetry = this.#telemetry.get(carId);
      if (link.ready && telemetry) links.push([carId, telemetry]);
    }
    return links;
  }

  lastTelemetry(carId: number): (Telemetry & { at: string }) | null {
    return this.#telemetry.get(carId) ?? null;
  }

  /** `listener` hears each telemetry of a car held here, synchronously on the relay path: it must not wait. */
  onCarTelemetry(listener: (carId: number, telemetry: Telemetry & { at: string }) => void): void {
    this.#telemetryListeners.add(listener);
  }

  /** A car agent authenticated at the upgrade; a previous connection of the same car is replaced. */
  attachCar(
    carId: number,
    connection: SocketConnection,
    channelAccess: CarChannelAccess | null = null,
  ): CarLink {
    const previous = this.#cars.get(carId);
    const link = new CarLink(
      carId,
      connection,
      {
        config: () => this.options.carConfig(carId),
        // The controller hears of it from the fact (car.online), like a controller elsewhere.
        onReady: (ready) =>
          this.events.emit('car.online', {
            carId,
            instance: this.#crossInstance.instanceId,
            passes: ready.reportsPasses,
          }),
        onTelemetry: (_link, telemetry) => {
          const received = { ...telemetry, at: new Date().toISOString() };
          this.#telemetry.set(carId, received);
          this.#controllers.get(carId)?.send({ type: 'telemetry', telemetry });
          this.#crossInstance.sendTelemetry(carId, telemetry);
          for (const listener of this.#telemetryListeners) listener(carId, received);
        },
        // A fact for whoever counts laps (the race module, on whichever instance runs it).
        onPass: (_link, at) => this.events.emit('lap.passed', { carId, at, source: 'car' }),
        onClose: (closed) => {
          if (this.#cars.get(carId) !== closed) return;
          this.#cars.delete(carId);
          this.#crossInstance.unserve(carId);
          this.log.info({ carId }, 'car disconnected');
          // The controller hears of it from the fact (car.offline).
          this.events.emit('car.offline', { carId, instance: this.#crossInstance.instanceId });
        },
      },
      this.log,
      channelAccess,
    );
    this.#cars.set(carId, link);
    this.#crossInstance.serve(carId);
    previous?.close(SOCKET_CLOSE_CODES.replaced, 'replaced by a new connection');
    return link;
  }

  /**
   * A driver holding the car, admitted by `admission` (the upgrade request: the member-sockets
   * registry closes the socket at once if a revocation came meanwhile); a previous control
   * socket for the car is replaced.
   */
  attachController(
    carId: number,
    sessionId: number,
    connection: SocketConnection,
    access: ControllerAccess,
    admission: FastifyRequest,
  ): ControllerLink {
    const previous = this.#controllers.get(carId);
    let unregister = () => {};
    const link = new ControllerLink(carId, sessionId, access, connection, {
      onDrive: (_link, throttle, steer) => {
        if (this.#controllers.get(carId) !== link) return;
        if (this.#cars.has(carId)) {
          if (this.#driveHere(carId, throttle, steer, false))
            this.driveLatency.observeSince(link.connection.receivedAt);
        } else if (this.#crossInstance.knowsElsewhere(carId))
          this.#crossInstance.drive(link, throttle, steer);
      },
      onRevoked: (revoked, revocation) => this.#detach(revoked, revocation),
      onClose: (closed) => {
        unregister();
        if (this.#controllers.get(carId) !== closed) return;
        this.#controllers.delete(carId);
        // Safety: the driver is gone, the car goes to neutral now.
        this.#stop(carId);
        this.#crossInstance.release(carId);
      },
    });
    this.#controllers.set(carId, link);
    if (previous) {
      this.#stop(carId);
      previous.close(SOCKET_CLOSE_CODES.replaced, 'replaced by a new connection');
    }
    link.send({ type: 'car-status', online: this.isOnline(carId) });
    unregister = this.options.controllerSockets.add(admission, link);
    return link;
  }

  /**
   * A race's countdown: these cars go to neutral now and stay there whatever their drivers send,
   * still hearing the server (the heartbeat repeats the neutral drive, so no deadman trips).
   */
  holdNeutral(carIds: readonly number[]): void {
    this.#holding = true;
    this.#neutral = new Set(carIds);
    this.#requested.clear();
    for (const carId of carIds) this.#cars.get(carId)?.drive(0, 0);
  }

  /** The race is on: each held car gets what its driver asks for now (a driver holding W goes at once). */
  releaseNeutral(): void {
    this.#holding = false;
    const held = this.#neutral;
    this.#neutral = new Set();
    for (const carId of held) {
      // A driver that left meanwhile stopped the car, which forgot the request (#stop).
      const requested = this.#requested.get(carId);
      const car = this.#cars.get(carId);
      if (!requested || !car) continue;
      if (requested.once) car.driveOnce(requested.throttle, requested.steer);
      else car.drive(requested.throttle, requested.steer);
    }
    this.#requested.clear();
  }

  /**
   * A drive for a car held here, from its controller here or (`once`) from another instance,
   * which repeats it itself. During the countdown the car hears neutral (its deadman stays fed)
   * and the request waits for the green light. True when the drive went to the car as asked.
   */
  #driveHere(carId: number, throttle: number, steer: number, once: boolean): boolean {
    const car = this.#cars.get(carId);
    if (!car) return false;
    const held = this.#neutral.has(carId);
    if (held) this.#requested.set(carId, { throttle, steer, once });
    // Plain numbers, not a destructured pair: a drive allocates as little as it can (issue 27).
    const t = held ? 0 : throttle;
    const s = held ? 0 : steer;
    if (once) car.driveOnce(t, s);
    else car.drive(t, s);
    return !held;
  }

  /**
   * A revocation (sessions-revoked, log-out) through the member-sockets registry: the car stops
   * and the control socket closes now, before the car session itself is ended.
   */
  #detach(link: ControllerLink, { code, reason }: Revocation): void {
    if (this.#controllers.get(link.carId) === link) {
      this.#controllers.delete(link.carId);
      this.#stop(link.carId);
    }
    link.close(code, reason);
  }

  /** Neutral now, wherever the car is held (no request waits for the green light any more). */
  #stop(carId: number): void {
    this.#requested.delete(carId);
    const car = this.#cars.get(carId);
    if (car) car.stop();
    else this.#crossInstance.stop(carId);
  }

  /** Server shutdown: cars go to neutral, then every socket closes. */
  close(): void {
    for (const car of this.#cars.values()) {
      car.stop();
      car.close(1001, 'server shutting down');
    }
    for (const controller of this.#controllers.values()) controller.close(1001, 'server shutting down');
    this.#crossInstance.close();
    this.#unsubscribeWorkerExits();
  }
}
