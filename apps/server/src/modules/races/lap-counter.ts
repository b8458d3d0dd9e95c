/**
 * The lap counter seam (docs/races.md "Lap counting"). One adapter runs, chosen by `LAP_COUNTER`:
 * `car` (the cars report their own finish-line passes on the car socket), `zround` (a ZRound /
 * RiCino decoder over TCP) or `rotorhazard` (a RotorHazard timer over Socket.IO). An adapter
 * turns what its source says into passes `{carId, at}`; the race module publishes each one as the
 * `lap.passed` fact and the race engine decides whether it counts (lap-rules.ts).
 */
import type { LapCounterKind } from '@telerace/protocol';

export interface LapPass {
  carId: number;
  /** When the car crossed the line, epoch ms (the counter's clock). */
  at: number;
}

/** A driver as the lap counter should name them. */
export interface LapCounterDriver {
  carId: number;
  /** What the counter calls the car (transponder / pilot id), null when none is set. */
  lapCounterId: string | null;
  name: string;
}

export interface LapCounter {
  readonly kind: LapCounterKind;
  /** Connects (and keeps reconnecting with backoff); passes go to `onPass`. Never throws for a down counter. */
  start(onPass: (pass: LapPass) => void): Promise<void> | void;
  stop(): Promise<void> | void;
  /** Whether the counter is reachable right now (the `car` counter always is). */
  isConnected(): boolean;
  /**
   * Pushes the drivers' names to a counter that keeps names (RotorHazard) and says how many it
   * named; a counter that keeps no names answers 0; a disconnected one throws the DomainError
   * `lapCounterNotConnected`.
   */
  syncNames(drivers: readonly LapCounterDriver[]): Promise<number>;
}

/**
 * Which car a lap counter's id belongs to (the car admin's `lap_counter_id`), kept in memory:
 * loaded at start, updated by `car.lap-counter-id-changed` and `car.deleted`.
 */
export interface CarByLapCounterId {
  carFor(lapCounterId: string): number | null;
  lapCounterIdOf(carId: number): string | null;
}
