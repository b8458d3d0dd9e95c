import { describe, expect, it } from 'vitest';
import { minutesAfter } from './clock.js';
import { ManualClock } from './test/clock.js';

describe('ManualClock', () => {
  it('runs timeouts once, in time order, when time passes them', () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const ran: string[] = [];
    clock.setTimeout(() => ran.push(`b@${clock.now().toISOString()}`), 2_000);
    clock.setTimeout(() => ran.push(`a@${clock.now().toISOString()}`), 1_000);
    clock.advance(999);
    expect(ran).toEqual([]);
    clock.advance(5_000);
    expect(ran).toEqual(['a@2026-01-01T00:00:01.000Z', 'b@2026-01-01T00:00:02.000Z']);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:05.999Z');
  });

  it('repeats intervals and forgets cleared timers', () => {
    const clock = new ManualClock();
    let ticks = 0;
    const interval = clock.setInterval(() => ticks++, 100);
    const timeout = clock.setTimeout(() => (ticks += 1_000), 50);
    clock.clear(timeout);
    clock.advance(350);
    expect(ticks).toBe(3);
    clock.clear(interval);
    clock.advance(1_000);
    expect(ticks).toBe(3);
  });
});

describe('minutesAfter', () => {
  it('adds whole and fractional minutes', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(minutesAfter(from, 15).toISOString()).toBe('2026-01-01T00:15:00.000Z');
    expect(minutesAfter(from, 0.5).toISOString()).toBe('2026-01-01T00:00:30.000Z');
  });
});
