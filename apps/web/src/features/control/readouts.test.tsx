import { describe, expect, it } from 'vitest';
import { formatRemaining, pingTone } from './readouts';

describe('pingTone', () => {
  it.each([
    [0, 'good'],
    [99, 'good'],
    [100, 'fair'],
    [250, 'fair'],
    [251, 'poor'],
    [5000, 'poor'],
  ] as const)('%d ms is %s', (ms, tone) => {
    expect(pingTone(ms)).toBe(tone);
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '0:00'],
    [-5000, '0:00'],
    [1, '0:01'],
    [59_000, '0:59'],
    [60_000, '1:00'],
    [452_100, '7:33'],
    [3_600_000, '60:00'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});
