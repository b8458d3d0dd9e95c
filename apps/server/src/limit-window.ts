/**
 * The counted abuse limits (wrong control codes, wrong current passwords, e-mail address changes,
 * race commands, and the failed-login throttle's counts) on rate-limiter-flexible: at most `limit`
 * events per key in a window of `windowMs`. The window is fixed and starts at a key's first event
 * (the library's model, docs/decisions.md): the wait it answers is until that window ends.
 *
 * Where the counts live is a `LimiterStore`: this process's memory (`memoryLimiters`, without
 * REDIS_URL), or Redis shared by every instance (scale-out/limit-stores.ts). Times are the
 * library's own (Date.now in memory, Redis's key expiry): these limits do not follow the domain's
 * Clock, so their tests look at the waits they answer instead of moving a clock.
 */
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export type LimitKey = string | number;

/** Builds one limit's limiter: `name` keeps its keys apart from the other limits' in a shared store. */
export type LimiterStore = (name: string, points: number, windowMs: number) => RateLimiterAbstract;

/** The library counts in whole seconds (Redis expiry): a window must be a whole number of them. */
export function windowSeconds(windowMs: number): number {
  if (windowMs <= 0 || windowMs % 1000 !== 0)
    throw new Error(`a limit window of ${windowMs} ms is not whole seconds`);
  return windowMs / 1000;
}

/** Counts in this process's memory only (one instance). */
export const memoryLimiters: LimiterStore = (name, points, windowMs) =>
  new RateLimiterMemory({ keyPrefix: name, points, duration: windowSeconds(windowMs) });

export class LimitWindow<K extends LimitKey> {
  constructor(readonly limiter: RateLimiterAbstract) {}

  /** Milliseconds until one more event of `key` is allowed; 0 while under the limit. */
  async retryAfterMs(key: K): Promise<number> {
    const counted = await this.limiter.get(key);
    return counted && counted.consumedPoints >= this.limiter.points ? Math.max(1, counted.msBeforeNext) : 0;
  }

  async record(key: K): Promise<void> {
    await this.limiter.penalty(key);
  }

  /**
   * A budget's step: counts one event of `key` and answers true while under the limit, false once
   * it is spent — the check and the count in one step (atomic in Redis), so commands arriving at
   * once on several sockets or instances cannot all slip under it.
   */
  async take(key: K): Promise<boolean> {
    try {
      await this.limiter.consume(key);
      return true;
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return false;
      throw refusal;
    }
  }

  /** Takes back the latest event of `key` (an attempt that turned out to reveal nothing). */
  async unrecord(key: K): Promise<void> {
    await this.limiter.reward(key);
  }
}

/** Builds a window: `name` keeps different limits apart in a shared store. */
export type LimitWindowFactory = <K extends LimitKey>(
  name: string,
  limit: number,
  windowMs: number,
) => LimitWindow<K>;

export function limitWindows(store: LimiterStore): LimitWindowFactory {
  return <K extends LimitKey>(name: string, limit: number, windowMs: number) =>
    new LimitWindow<K>(store(name, limit, windowMs));
}
