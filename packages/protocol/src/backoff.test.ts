import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay, RECONNECT_BACKOFF } from './backoff.js';

const SPEC_DELAYS = [100, 200, 400, 800, 1600, 3200, 6400, 8000, 8000, 8000];

describe('backoffDelay', () => {
  it('is the first delay doubled per attempt, capped', () => {
    const delays = SPEC_DELAYS.map((_, attempt) => backoffDelay(RECONNECT_BACKOFF, attempt));
    expect(delays).toEqual(SPEC_DELAYS);
  });

  it('stays at the cap for any number of attempts, even past 2^1024', () => {
    for (const attempt of [8, 50, 1023, 1024, 5000, Number.MAX_SAFE_INTEGER]) {
      expect(backoffDelay({ initialMs: 1000, maxMs: 60_000 }, attempt)).toBe(60_000);
    }
  });

  it('treats a negative attempt as the first', () => {
    expect(backoffDelay({ initialMs: 15, maxMs: 100 }, -3)).toBe(15);
  });

  it('a cap below the first delay wins', () => {
    expect(backoffDelay({ initialMs: 500, maxMs: 300 }, 0)).toBe(300);
  });

  it('the cap need not be a doubling of the first delay', () => {
    const delays = [0, 1, 2, 3, 4].map((attempt) => backoffDelay({ initialMs: 50, maxMs: 300 }, attempt));
    expect(delays).toEqual([50, 100, 200, 300, 300]);
  });
});

describe('Backoff', () => {
  it('defaults to the spec: 100 ms doubling up to 8000 ms, then stays there', () => {
    const backoff = new Backoff();
    expect(Array.from({ length: 10 }, () => backoff.next())).toEqual(SPEC_DELAYS);
  });

  it('never exceeds the cap, however many attempts', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 8000 });
    for (let i = 0; i < 2000; i += 1) expect(backoff.next()).toBeLessThanOrEqual(8000);
    expect(backoff.next()).toBe(8000);
  });

  it('starts over after a reset (a success), from any point', () => {
    for (const failures of [0, 1, 3, 20]) {
      const backoff = new Backoff();
      for (let i = 0; i < failures; i += 1) backoff.next();
      backoff.reset();
      expect([backoff.next(), backoff.next()]).toEqual([100, 200]);
    }
  });

  it('max() is the cap and leaves the sequence where it was', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 30_000 });
    expect(backoff.next()).toBe(1000);
    expect(backoff.max()).toBe(30_000);
    expect(backoff.next()).toBe(2000);
  });

  it('keeps its bounds readable', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000 });
    expect([backoff.initialMs, backoff.maxMs]).toEqual([1000, 60_000]);
  });
});

describe('Backoff with jitter', () => {
  it('takes up to the jitter share off each delay, never more, never above the nominal one', () => {
    for (const random of [0, 0.25, 0.5, 0.999]) {
      const backoff = new Backoff(RECONNECT_BACKOFF, { jitter: 0.25, random: () => random });
      const delays = Array.from({ length: 10 }, () => backoff.next());
      expect(delays).toEqual(SPEC_DELAYS.map((nominal) => Math.round(nominal * (1 - 0.25 * random))));
    }
  });

  it('keeps doubling and resetting as without it', () => {
    const backoff = new Backoff(RECONNECT_BACKOFF, { jitter: 0.5, random: () => 0.5 });
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([75, 150, 300]);
    backoff.reset();
    expect(backoff.next()).toBe(75);
  });

  it('jitters max() too', () => {
    const backoff = new Backoff(RECONNECT_BACKOFF, { jitter: 0.25, random: () => 0.5 });
    expect(backoff.max()).toBe(7000);
  });

  it('draws a fresh random number for each delay', () => {
    const draws = [0, 0.999, 0.5];
    const backoff = new Backoff(
      { initialMs: 1000, maxMs: 1000 },
      { jitter: 0.25, random: () => draws.shift() ?? 0 },
    );
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([1000, 750, 875]);
  });
});
