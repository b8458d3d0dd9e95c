/**
 * Reconnection delays of the server's clients of other services (the lap counters, the Discord
 * bot and its loyalty sync): 100 ms, doubling up to 8 s, back to 100 ms once connected.
 */
export const FIRST_RETRY_MS = 100;
export const MAX_RETRY_MS = 8_000;

export class Backoff {
  #next: number;

  constructor(
    readonly firstMs = FIRST_RETRY_MS,
    readonly maxMs = MAX_RETRY_MS,
  ) {
    this.#next = firstMs;
  }

  /** The delay before the next attempt; each call doubles the one after. */
  next(): number {
    const delay = this.#next;
    this.#next = Math.min(this.#next * 2, this.maxMs);
    return delay;
  }

  reset(): void {
    this.#next = this.firstMs;
  }
}
