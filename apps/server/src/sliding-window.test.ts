import { describe, expect, it } from 'vitest';
import { SlidingWindowCounter } from './sliding-window.js';

const MINUTE = 60_000;

function budget(limit = 3, windowMs = 60 * MINUTE) {
  let now = 1_000_000;
  const attempts = new SlidingWindowCounter<number>(limit, windowMs, () => now);
  return {
    attempts,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('SlidingWindowCounter', () => {
  it('allows `limit` events, then waits until the oldest leaves the window', () => {
    const { attempts, advance } = budget();
    attempts.record(1);
    advance(10 * MINUTE);
    attempts.record(1);
    expect(attempts.retryAfterMs(1)).toBe(0);
    attempts.record(1);
    expect(attempts.retryAfterMs(1)).toBe(50 * MINUTE);
    advance(50 * MINUTE - 1);
    expect(attempts.retryAfterMs(1)).toBe(1);
    advance(1);
    // The first failure aged out: one more try, then the second one decides.
    expect(attempts.retryAfterMs(1)).toBe(0);
    attempts.record(1);
    expect(attempts.retryAfterMs(1)).toBe(10 * MINUTE);
  });

  it('keeps keys apart', () => {
    const { attempts } = budget(1);
    attempts.record(1);
    expect(attempts.retryAfterMs(1)).toBeGreaterThan(0);
    expect(attempts.retryAfterMs(2)).toBe(0);
  });

  it('forgets a key once its events are a window old', () => {
    const { attempts, advance } = budget(2);
    attempts.record(7);
    attempts.record(7);
    advance(60 * MINUTE);
    expect(attempts.retryAfterMs(7)).toBe(0);
    attempts.record(7);
    expect(attempts.retryAfterMs(7)).toBe(0);
  });

  it('takes back the latest event', () => {
    const { attempts } = budget(2);
    attempts.record(3);
    attempts.record(3);
    expect(attempts.retryAfterMs(3)).toBeGreaterThan(0);
    attempts.unrecord(3);
    expect(attempts.retryAfterMs(3)).toBe(0);
    expect(attempts.count(3)).toBe(1);
  });

  it('keeps at most `limit` times per key and forgets keys whose window passed', () => {
    const { attempts, advance } = budget(3);
    for (let i = 0; i < 10; i++) attempts.record(1);
    expect(attempts.storedEvents()).toBe(3);
    for (let key = 2; key < 50; key++) attempts.record(key);
    expect(attempts.size).toBe(49);
    advance(61 * MINUTE);
    attempts.record(1000);
    expect(attempts.size).toBe(1);
  });
});
