/**
 * The one exponential backoff (issue 24): every "try again later" in the server, the web app and
 * the car waits `initialMs`, doubling after each failed attempt up to `maxMs`, and starts over
 * after a success. The defaults are the spec's reconnect delays (§9: 100 ms doubling to 8000 ms).
 * With `jitter`, each delay is drawn below its nominal one (never above, so the nominal delays stay
 * the upper bound): after a server restart every client would otherwise come back in the same
 * millisecond. Pure apart from `random`; the caller owns the timer.
 */
import { TIMERS_MS } from './constants.js';

export interface BackoffSchedule {
  /** The first delay, after one failure. */
  initialMs: number;
  /** The cap: the delay stays here however many attempts fail. */
  maxMs: number;
}

export interface JitterOptions {
  /** The share of each delay that may be taken off at random (0: exact delays; 0.25: 75–100 %). */
  jitter?: number;
  /** A number in [0, 1), like Math.random (tests pass a fixed one). */
  random?: () => number;
}

/** The spec's reconnect delays: 100 ms doubling to 8000 ms. */
export const RECONNECT_BACKOFF: BackoffSchedule = {
  initialMs: TIMERS_MS.reconnectInitial,
  maxMs: TIMERS_MS.reconnectMax,
};

/**
 * The nominal delay before attempt `attempt` (0: the first retry): `initialMs × 2^attempt`, capped.
 * For callers that count their failures themselves.
 */
export function backoffDelay({ initialMs, maxMs }: BackoffSchedule, attempt: number): number {
  // 2^attempt overflows to Infinity long after the cap, which Math.min still handles.
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt));
}

/** The delays of one retry loop: `next()` after each failure, `reset()` after a success. */
export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(
    { initialMs, maxMs }: BackoffSchedule = RECONNECT_BACKOFF,
    { jitter = 0, random = Math.random }: JitterOptions = {},
  ) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.#jitter = jitter;
    this.#random = random;
  }

  /** The delay before the next attempt; each call doubles the one after it, up to the cap. */
  next(): number {
    const nominal = backoffDelay(this, this.#attempt);
    if (nominal < this.maxMs) this.#attempt += 1;
    return this.#jittered(nominal);
  }

  /** Straight to the longest delay, without moving the sequence: retrying fast cannot help. */
  max(): number {
    return this.#jittered(this.maxMs);
  }

  /** After a success: the next delay is the first one again. */
  reset(): void {
    this.#attempt = 0;
  }

  #jittered(nominal: number): number {
    if (this.#jitter === 0) return nominal;
    return Math.round(nominal * (1 - this.#jitter * this.#random()));
  }
}
