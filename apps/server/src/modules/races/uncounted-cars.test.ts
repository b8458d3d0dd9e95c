import type { LapCounterKind } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { uncountedCars } from './uncounted-cars.js';

/** Car 1's agent reports crossings and it has a transponder; car 2's does not and it has none; car 3's agent was never heard. */
const facts = {
  reportsPasses: (carId: number) => ({ 1: true, 2: false })[carId] ?? null,
  lapCounterIdOf: (carId: number) => ({ 1: '0A', 3: '0B' })[carId] ?? null,
};
const participants = [1, 2, 3].map((carId) => ({ carId, carName: `Car ${carId}` }));

describe('uncountedCars', () => {
  it.each<[LapCounterKind, { carId: number; reason: string }[]]>([
    ['car', [{ carId: 2, reason: 'no_passes' }]],
    ['zround', [{ carId: 2, reason: 'no_lap_counter_id' }]],
    ['rotorhazard', [{ carId: 2, reason: 'no_lap_counter_id' }]],
  ])('with the %s lap counter', (kind, expected) => {
    expect(uncountedCars(kind, participants, facts)).toEqual(
      expected.map((car) => ({ ...car, carName: `Car ${car.carId}` })),
    );
  });

  it('judges no car when nobody is in the race', () => {
    expect(uncountedCars('car', [], facts)).toEqual([]);
  });
});
