/**
 * Events per key in a sliding window, in memory (per server process): the one counter behind the
 * abuse limits that count what a member or an address did lately — failed logins per IP, e-mail
 * changes, wrong control codes. It keeps only the newest `limit` times of each key (the oldest of
 * them says when the next event is allowed), and forgets keys whose window has passed, so a spray
 * of new e-mails or addresses cannot grow memory without bound.
 */

/** Above this many tracked keys, those with nothing left in the window are dropped. */
const SWEEP_THRESHOLD = 10_000;

export class SlidingWindowCounter<K> {
  /** Per key, the times of its events still possibly in the window, oldest first. */
  readonly #events = new Map<K, number[]>();
  #sweepAtSize = SWEEP_THRESHOLD;
  #lastSweepAt: number;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#lastSweepAt = now();
  }

  /** Milliseconds until one more event of `key` is allowed; 0 while under the limit. */
  retryAfterMs(key: K): number {
    const now = this.now();
    const recent = this.#recent(key, now);
    if (recent.length < this.limit) return 0;
    // At most `limit` are kept: the oldest must age out for the count to drop under the limit.
    return Math.max(1, (recent[0] as number) + this.windowMs - now);
  }

  /** Events of `key` within the window. */
  count(key: K): number {
    return this.#recent(key, this.now()).length;
  }

  record(key: K): void {
    const now = this.now();
    const recent = this.#recent(key, now);
    recent.push(now);
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    this.#events.set(key, recent);
    this.#maybeSweep(now);
  }

  /** Takes back the latest event of `key` (an attempt that turned out to reveal nothing). */
  unrecord(key: K): void {
    this.#events.get(key)?.pop();
  }

  /** Number of keys tracked (tests: memory stays bounded). */
  get size(): number {
    return this.#events.size;
  }

  /** Number of event times stored (tests: lists stay bounded). */
  storedEvents(): number {
    let total = 0;
    for (const times of this.#events.values()) total += times.length;
    return total;
  }

  #recent(key: K, now: number): number[] {
    const since = now - this.windowMs;
    const live = (this.#events.get(key) ?? []).filter((at) => at > since);
    if (live.length === 0) this.#events.delete(key);
    return live;
  }

  #maybeSweep(now: number): void {
    if (this.#events.size <= this.#sweepAtSize && now - this.#lastSweepAt < this.windowMs) return;
    const since = now - this.windowMs;
    for (const [key, times] of this.#events) {
      const live = times.filter((at) => at > since);
      if (live.length === 0) this.#events.delete(key);
      else this.#events.set(key, live);
    }
    this.#lastSweepAt = now;
    // Sweeping at every event of a spray that is still live would be quadratic.
    this.#sweepAtSize = Math.max(SWEEP_THRESHOLD, 2 * this.#events.size);
  }
}
