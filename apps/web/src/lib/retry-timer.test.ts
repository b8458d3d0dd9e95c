import { Backoff } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RetryTimer } from './retry-timer';

describe('RetryTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the retry after the next delay and returns that delay', () => {
    const timer = new RetryTimer(new Backoff());
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
    const timer = new RetryTimer(new Backoff());
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
