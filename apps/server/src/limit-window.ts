/**
 * One interface for the sliding-window abuse limits (wrong control codes, wrong current
 * passwords, e-mail address changes, failed logins per IP): events per key in a sliding window.
 * Two stores: in memory, per process (this file, the behaviour without REDIS_URL), and shared by
 * every instance in Redis (scale-out/redis-sliding-window.ts). Async because the shared one asks
 * Redis.
 */
import { SlidingWindowCounter } from './sliding-window.js';

export type LimitKey = string | number;

export interface LimitWindow<K extends LimitKey> {
  readonly limit: number;
  readonly windowMs: number;
  /** Milliseconds until one more event of `key` is allowed; 0 while under the limit. */
  retryAfterMs(key: K): Promise<number>;
  record(key: K): Promise<void>;
  /**
   * A budget's step: records one event of `key` and answers true while under the limit, or
   * records nothing and answers false — the check and the record in one step (atomic in Redis),
   * so commands arriving at once on several sockets or instances cannot all slip under it.
   */
  take(key: K): Promise<boolean>;
  /** Takes back the latest event of `key` (an attempt that turned out to reveal nothing). */
  unrecord(key: K): Promise<void>;
  /** Keys tracked in this process's memory (tests: memory stays bounded). */
  trackedKeys(): number;
}

/** Builds a window: `name` keeps different limits apart in a shared store. */
export type LimitWindowFactory = <K extends LimitKey>(
  name: string,
  limit: number,
  windowMs: number,
) => LimitWindow<K>;

/** The in-memory store: this process's own counts. */
export class LocalLimitWindow<K extends LimitKey> implements LimitWindow<K> {
  readonly counter: SlidingWindowCounter<K>;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    now: () => number = Date.now,
  ) {
    this.counter = new SlidingWindowCounter<K>(limit, windowMs, now);
  }

  async retryAfterMs(key: K): Promise<number> {
    return this.counter.retryAfterMs(key);
  }

  async record(key: K): Promise<void> {
    this.counter.record(key);
  }

  async take(key: K): Promise<boolean> {
    if (this.counter.retryAfterMs(key) > 0) return false;
    this.counter.record(key);
    return true;
  }

  async unrecord(key: K): Promise<void> {
    this.counter.unrecord(key);
  }

  trackedKeys(): number {
    return this.counter.size;
  }
}

/** Windows in this process's memory only (one instance, and unit tests with their own clock). */
export function localLimitWindows(now: () => number = Date.now): LimitWindowFactory {
  return <K extends LimitKey>(_name: string, limit: number, windowMs: number) =>
    new LocalLimitWindow<K>(limit, windowMs, now);
}
