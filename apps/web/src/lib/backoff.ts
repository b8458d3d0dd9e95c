/**
 * Reconnect delays (spec §9): 100 ms, doubling each failed attempt, capped at 8000 ms; a
 * successful connection starts over from the initial delay. With `jitter`, each delay is drawn
 * below that nominal one (never above, so the spec's delays stay the upper bound): after a server
 * restart every page would otherwise come back in the same millisecond. `RetryTimer` is the one
 * timer that waits such a delay out, shared by the reconnecting socket and the video retries.
 */
import { TIMERS_MS } from '@telerace/protocol';

export interface Backoff {
  /** The delay before the next attempt; each call doubles the one after it, up to the cap. */
  next(): number;
  /** After a success: the next delay is the initial one again. */
  reset(): void;
}

export interface JitterOptions {
  /** The share of each delay that may be taken off at random (0: exact delays; 0.25: 75–100 %). */
  jitter?: number;
  /** A number in [0, 1), like Math.random (tests pass a fixed one). */
  random?: () => number;
}

/** The sockets' jitter: a restart's reconnections spread over the last quarter of each delay. */
export const RECONNECT_JITTER = 0.25;

export function createBackoff(
  initialMs: number = TIMERS_MS.reconnectInitial,
  maxMs: number = TIMERS_MS.reconnectMax,
  { jitter = 0, random = Math.random }: JitterOptions = {},
): Backoff {
  let attempt = 0;
  return {
    next() {
      // 2^attempt overflows to Infinity long after the cap, which Math.min still handles.
      const nominal = Math.min(maxMs, initialMs * 2 ** attempt);
      if (nominal < maxMs) attempt += 1;
      return Math.round(nominal * (1 - jitter * random()));
    },
    reset() {
      attempt = 0;
    },
  };
}

/** Runs one retry after the backoff's next delay; a new schedule or `cancel` drops the pending one. */
export class RetryTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly backoff: Backoff) {}

  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Returns the delay chosen. */
  schedule(retry: () => void): number {
    this.cancel();
    const delay = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      retry();
    }, delay);
    return delay;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
