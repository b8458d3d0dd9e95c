/**
 * Which participants' cars the lap counter in use cannot count, so the Race Control tab can say so
 * before the start (docs/races.md "Which lap counter"): with `car`, a car whose agent said it
 * reports no crossings; with a decoder or a timer, a car with no lap counter id to match its
 * passes to. Pure: what is known of each car is passed in.
 */
import type { LapCounterKind, UncountedCar } from '@telerace/protocol';

export interface CarLapFacts {
  /** Whether the car's agent reports its crossings; null when no agent of it was heard yet. */
  reportsPasses(carId: number): boolean | null;
  /** What the lap counter calls the car, null when nothing. */
  lapCounterIdOf(carId: number): string | null;
}

export function uncountedCars(
  kind: LapCounterKind,
  participants: readonly { carId: number; carName: string }[],
  facts: CarLapFacts,
): UncountedCar[] {
  return participants.flatMap(({ carId, carName }): UncountedCar[] => {
    if (kind === 'car') {
      // An agent not heard yet is not judged: its car is offline, and nothing is known of it.
      return facts.reportsPasses(carId) === false ? [{ carId, carName, reason: 'no_passes' }] : [];
    }
    return facts.lapCounterIdOf(carId) === null ? [{ carId, carName, reason: 'no_lap_counter_id' }] : [];
  });
}
