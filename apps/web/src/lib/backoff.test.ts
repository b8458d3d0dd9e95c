import { TIMERS_MS } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { createBackoff } from './backoff';

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
