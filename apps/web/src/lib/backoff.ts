/**
 * Reconnect delays (spec §9): 100 ms, doubling each failed attempt, capped at 8000 ms; a
 * successful connection starts over from the initial delay.
 */
import { TIMERS_MS } from '@telerace/protocol';

export interface Backoff {
  /** The delay before the next attempt; each call doubles the one after it, up to the cap. */
  next(): number;
  /** After a success: the next delay is the initial one again. */
  reset(): void;
}

export function createBackoff(
  initialMs: number = TIMERS_MS.reconnectInitial,
  maxMs: number = TIMERS_MS.reconnectMax,
): Backoff {
  let attempt = 0;
  return {
    next() {
      // 2^attempt overflows to Infinity long after the cap, which Math.min still handles.
      const delay = Math.min(maxMs, initialMs * 2 ** attempt);
      if (delay < maxMs) attempt += 1;
      return delay;
    },
    reset() {
      attempt = 0;
    },
  };
}
