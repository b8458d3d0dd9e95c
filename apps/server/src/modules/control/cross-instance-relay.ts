/**
 * The relay across instances (issue 15): a car's agent may be on another instance than its
 * driver. Which instance holds each car comes from the `car.online`/`car.offline` facts (and each
 * instance's periodic presence, relay-bridge.ts); a controller here drives a car held elsewhere
 * through a RemoteCar, and a car held here hears its remote drivers through the bridge. The local
 * relay (car-relay.ts) asks here only for cars it does not hold: a driver and a car on the same
 * instance never use the bridge.
 */
import type { Telemetry } from '@telerace/protocol';
import type { ControllerLink } from './controller-link.js';
import { LOCAL_ONLY, PRESENCE_LASTS_MS, type RelayBridge, type RemoteCar } from './relay-bridge.js';

/** What the cross-instance relay needs from the local one. */
export interface LocalRelay {
  /** The cars whose agent is connected here and past its handshake. */
  onlineCarIds(): number[];
  /** Whether a car's agent socket is here (handshake done or not). */
  hasCarSocket(carId: number): boolean;
  /** Every control socket here, by car id. */
  controllers(): Iterable<[number, ControllerLink]>;
  /** A drive from another instance for a car held here (`once`: that instance repeats it). */
  driveHere(carId: number, throttle: number, steer: number, once: boolean): boolean;
  /** Neutral now for a car held here. */
  stop(carId: number): void;
  /** Telemetry of a car held elsewhere, for its driver here. */
  heardTelemetry(carId: number, telemetry: Telemetry): void;
}

export class CrossInstanceRelay {
  readonly #bridge: RelayBridge;
  readonly #local: LocalRelay;
  /** Cars whose socket another instance holds: which one, and when it last said so. */
  readonly #elsewhere = new Map<number, { instance: string; seenAt: number }>();
  /** Controllers here whose car is held by another instance. */
  readonly #remotes = new Map<number, RemoteCar>();
  /** Cars held here: the end of their hearing remote drivers. */
  readonly #served = new Map<number, () => void>();
  /**
   * Drives that crossed instances (GET /metrics): `sent` by drivers here to cars held elsewhere,
   * `forwarded` here to a held car from drivers elsewhere (the heartbeat's repeats included).
   */
  readonly remoteDrives = { sent: 0, forwarded: 0 };

  constructor(local: LocalRelay, bridge: RelayBridge = LOCAL_ONLY) {
    this.#local = local;
    this.#bridge = bridge;
    this.#bridge.onStateChange((connected) => {
      // Drivers of cars held elsewhere: reachable again, or not for now.
      for (const [carId, controller] of local.controllers())
        if (!local.hasCarSocket(carId) && this.#elsewhere.has(carId))
          controller.send({ type: 'car-status', online: connected });
    });
    this.#bridge.sharePresence(
      () => local.onlineCarIds(),
      (instance, carIds) => this.#heardPresence(instance, carIds),
    );
  }

  /** This instance's name in the `car.online`/`car.offline` facts. */
  get instanceId(): string {
    return this.#bridge.instanceId;
  }

  /** A `car.online` fact: another instance holds the car now. */
  heardOnline(carId: number, instance: string | undefined): void {
    if (instance !== undefined && instance !== this.#bridge.instanceId)
      this.#elsewhere.set(carId, { instance, seenAt: Date.now() });
  }

  /** A `car.offline` fact: the instance that held the car no longer does. */
  heardOffline(carId: number, instance: string | undefined): void {
    if (this.#elsewhere.get(carId)?.instance === instance) this.#elsewhere.delete(carId);
  }

  /** Whether another instance said it holds the car (fresh or not). */
  knowsElsewhere(carId: number): boolean {
    return this.#elsewhere.has(carId);
  }

  /** Whether another reachable instance holds the car now. */
  isOnlineElsewhere(carId: number): boolean {
    const elsewhere = this.#elsewhere.get(carId);
    return (
      elsewhere !== undefined && Date.now() - elsewhere.seenAt < PRESENCE_LASTS_MS && this.#bridge.connected
    );
  }

  /** The car's telemetry, for its drivers on other instances. */
  sendTelemetry(carId: number, telemetry: Telemetry): void {
    this.#bridge.sendTelemetry(carId, telemetry);
  }

  /** A car connected here: it hears its drivers on other instances (once per car). */
  serve(carId: number): void {
    if (this.#served.has(carId)) return;
    this.#served.set(
      carId,
      this.#bridge.serveCar(carId, {
        drive: (throttle, steer) => {
          if (this.#local.driveHere(carId, throttle, steer, true)) this.remoteDrives.forwarded++;
        },
        stop: () => this.#local.stop(carId),
      }),
    );
  }

  /** The car's socket here closed: it no longer hears remote drivers. */
  unserve(carId: number): void {
    this.#served.get(carId)?.();
    this.#served.delete(carId);
  }

  /** A controller here, its car held by another instance: through the bridge, or offline when it cannot reach it. */
  drive(link: ControllerLink, throttle: number, steer: number): void {
    const { carId } = link;
    let remote = this.#remotes.get(carId);
    if (!remote) {
      remote = this.#bridge.driveRemote(carId, (telemetry) => this.#local.heardTelemetry(carId, telemetry));
      this.#remotes.set(carId, remote);
    }
    if (remote.drive(throttle, steer)) this.remoteDrives.sent++;
    else link.send({ type: 'car-status', online: false });
  }

  /** Neutral now for a car held elsewhere that a controller here drives. */
  stop(carId: number): void {
    this.#remotes.get(carId)?.stop();
  }

  /** The controller here left: its way to the car held elsewhere closes. */
  release(carId: number): void {
    this.#remotes.get(carId)?.close();
    this.#remotes.delete(carId);
  }

  /** Another instance says which cars it holds now: believed until PRESENCE_LASTS_MS without news. */
  #heardPresence(instance: string, carIds: number[]): void {
    const now = Date.now();
    const held = new Set(carIds);
    for (const [carId, elsewhere] of this.#elsewhere)
      if (elsewhere.instance === instance && !held.has(carId)) this.#elsewhere.delete(carId);
    for (const carId of carIds) {
      const known = this.#elsewhere.get(carId);
      // A newer `car.online` from another instance wins over this announcement while it is fresh.
      const stale = !known || known.instance === instance || now - known.seenAt > PRESENCE_LASTS_MS;
      if (!this.#local.hasCarSocket(carId) && stale) this.#elsewhere.set(carId, { instance, seenAt: now });
    }
  }

  /** Server shutdown: every way to and from other instances closes. */
  close(): void {
    for (const remote of this.#remotes.values()) remote.close();
    this.#remotes.clear();
    for (const stopServing of this.#served.values()) stopServing();
    this.#served.clear();
    this.#bridge.close();
  }
}
