/** Reconnect delays (spec §9): 100 ms doubling, capped at 8000 ms; reset after a welcome. */
import { TIMERS_MS } from '@telerace/protocol';

export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs: number = TIMERS_MS.reconnectInitial,
    private readonly maxMs: number = TIMERS_MS.reconnectMax,
  ) {}

  /** The delay before the next attempt; each call doubles the following one. */
  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    if (delay < this.maxMs) this.attempt += 1;
    return delay;
  }

  /** Straight to the longest delay: retrying fast cannot help (secret refused, incompatible). */
  max(): number {
    return this.maxMs;
  }

  reset(): void {
    this.attempt = 0;
  }
}
