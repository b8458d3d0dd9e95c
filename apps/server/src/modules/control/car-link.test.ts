import { ServerCarMessage } from '@telerace/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { driveFrame } from './car-link.js';

describe('driveFrame', () => {
  it('is the text JSON.stringify writes for the drive message, and a valid ServerCarMessage', () => {
    const unit = fc.double({ min: -1, max: 1, noNaN: true });
    fc.assert(
      fc.property(unit, unit, fc.nat(), (throttle, steer, seq) => {
        const text = driveFrame(throttle, steer, seq);
        const json = JSON.stringify({ type: 'drive', throttle, steer, seq });
        expect(text).toBe(json);
        // (Through JSON, as the car reads it: -0 arrives as 0.)
        expect(ServerCarMessage.parse(JSON.parse(text))).toEqual(JSON.parse(json));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the edge values as JSON does (-0 as 0, tiny and whole numbers)', () => {
    for (const [throttle, steer] of [
      [-0, 0],
      [1, -1],
      [5e-324, -1e-7],
      [0.1 + 0.2, 1 / 3],
    ] as const) {
      expect(driveFrame(throttle, steer, 2 ** 31)).toBe(
        JSON.stringify({ type: 'drive', throttle, steer, seq: 2 ** 31 }),
      );
    }
  });
});
