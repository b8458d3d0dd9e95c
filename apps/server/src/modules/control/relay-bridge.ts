/**
 * The relay's way to cars held by other server instances (scale-out, issue 15). A driver's control
 * socket and the car's agent may land on different instances: the controller's instance drives a
 * RemoteCar, the car's instance serves the car to remote drivers, and telemetry goes back.
 *
 * Safety stays with the car: the driver's instance repeats the drive (the heartbeat) itself, and
 * the car's instance forwards each one once without repeating it, so if that instance or the link
 * between them dies the car stops hearing drives and its own deadman puts it to neutral. A stop
 * (controller gone, session ended) is sent at once.
 *
 * Without REDIS_URL there are no other instances: `LOCAL_ONLY` reaches nothing and costs nothing.
 * The Redis implementation is scale-out/redis-relay-bridge.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Telemetry } from '@telerace/protocol';

/** A car held by another instance, driven by a controller on this one. */
export interface RemoteCar {
  /** Sent now and repeated every driveHeartbeatMs until `stop`; false when it cannot reach the car now. */
  drive(throttle: number, steer: number): boolean;
  /** Neutral now; nothing is repeated until the next drive. */
  stop(): void;
  /** The controller is gone: stop, and stop hearing the car's telemetry. */
  close(): void;
}

/** What remote drivers ask of a car held here. */
export interface ServedCarHandlers {
  /** One drive, to forward once (the driver's instance repeats it). */
  drive(throttle: number, steer: number): void;
  stop(): void;
}

/** How often an instance says which cars it holds, and how long the others believe it. */
export const PRESENCE_EVERY_MS = 2_000;
export const PRESENCE_LASTS_MS = 3 * PRESENCE_EVERY_MS + 500;

export interface RelayBridge {
  /** This process among the instances (in `car.online`/`car.offline`: who holds the car). */
  readonly instanceId: string;
  /** Whether other instances can be reached now (Redis up). */
  readonly connected: boolean;
  /** A controller here drives a car held by another instance; its telemetry comes to `onTelemetry`. */
  driveRemote(carId: number, onTelemetry: (telemetry: Telemetry) => void): RemoteCar;
  /** A car held here hears its remote drivers; returns the end of it (the car's socket closed). */
  serveCar(carId: number, handlers: ServedCarHandlers): () => void;
  /** A held car's telemetry, to its remote drivers if it has any. */
  sendTelemetry(carId: number, telemetry: Telemetry): void;
  /** Called when other instances become reachable or unreachable. */
  onStateChange(listener: (connected: boolean) => void): void;
  /**
   * Every few seconds, tells the others which cars are held here (`held`), and hands on what each
   * other instance holds (`heard`): an instance that started late learns who holds what, and one
   * that died without saying its cars went offline stops being believed (see CarRelay).
   */
  sharePresence(held: () => number[], heard: (instance: string, carIds: number[]) => void): void;
  /** App close: timers stop. */
  close(): void;
}

const UNREACHABLE: RemoteCar = { drive: () => false, stop: () => {}, close: () => {} };

/** One process: no other instance holds any car. */
export const LOCAL_ONLY: RelayBridge = {
  instanceId: randomUUID(),
  connected: false,
  driveRemote: () => UNREACHABLE,
  serveCar: () => () => {},
  sendTelemetry: () => {},
  onStateChange: () => {},
  sharePresence: () => {},
  close: () => {},
};
