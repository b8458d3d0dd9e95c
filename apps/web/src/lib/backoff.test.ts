import { TIMERS_MS } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBackoff, RetryTimer } from './backoff';

describe('createBackoff', () => {
  it('starts at 100 ms and doubles up to 8000 ms, then stays there', () => {
    const backoff = createBackoff();
    const delays = Array.from({ length: 10 }, () => backoff.next());
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 8000, 8000, 8000]);
    expect(TIMERS_MS.reconnectInitial).toBe(100);
    expect(TIMERS_MS.reconnectMax).toBe(8000);
  });

  it('starts over after a success', () => {
    const backoff = createBackoff();
    backoff.next();
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(100);
    expect(backoff.next()).toBe(200);
  });

  it('never exceeds the cap, however many attempts', () => {
    const backoff = createBackoff(100, 8000);
    for (let i = 0; i < 2000; i += 1) expect(backoff.next()).toBeLessThanOrEqual(8000);
    expect(backoff.next()).toBe(8000);
  });

  it('accepts other bounds', () => {
    const backoff = createBackoff(50, 300);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([50, 100, 200, 300]);
  });
});

describe('createBackoff with jitter', () => {
  it('takes up to the jitter share off each delay, never more, never above the nominal one', () => {
    for (const random of [0, 0.25, 0.5, 0.999]) {
      const backoff = createBackoff(100, 8000, { jitter: 0.25, random: () => random });
      const delays = Array.from({ length: 9 }, () => backoff.next());
      const nominal = [100, 200, 400, 800, 1600, 3200, 6400, 8000, 8000];
      delays.forEach((delay, i) => {
        expect(delay).toBe(Math.round((nominal[i] ?? Number.NaN) * (1 - 0.25 * random)));
      });
    }
  });

  it('keeps doubling and resetting as without it', () => {
    const backoff = createBackoff(100, 8000, { jitter: 0.5, random: () => 0.5 });
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([75, 150, 300]);
    backoff.reset();
    expect(backoff.next()).toBe(75);
  });
});

describe('RetryTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the retry after the next delay and returns that delay', () => {
    const timer = new RetryTimer(createBackoff());
    const retry = vi.fn();
    expect(timer.schedule(retry)).toBe(100);
    expect(timer.pending).toBe(true);
    vi.advanceTimersByTime(99);
    expect(retry).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(retry).toHaveBeenCalledTimes(1);
    expect(timer.pending).toBe(false);
    expect(timer.schedule(retry)).toBe(200);
  });

  it('a new schedule replaces the pending one; cancel drops it', () => {
    const timer = new RetryTimer(createBackoff());
    const first = vi.fn();
    const second = vi.fn();
    timer.schedule(first);
    timer.schedule(second);
    vi.advanceTimersByTime(10_000);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
    timer.schedule(first);
    timer.cancel();
    vi.advanceTimersByTime(10_000);
    expect(first).not.toHaveBeenCalled();
  });
});
