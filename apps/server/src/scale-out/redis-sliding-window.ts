/**
 * A sliding-window limit shared by every instance (issue 15): per key, a sorted set of event
 * times in Redis, trimmed and counted in one Lua script (atomic: two instances recording at once
 * both count), kept at most `limit` long and expiring a window after its newest event. The
 * in-memory window of this process is kept beside it as the floor: when Redis is down the limit
 * still holds for what this instance saw.
 *
 * Times are this process's clock (the instances' clocks are NTP-synchronised; a window is
 * minutes to an hour long).
 */
import { randomUUID } from 'node:crypto';
import { type LimitKey, type LimitWindow, LocalLimitWindow } from '../limit-window.js';
import type { SharedCounters } from './shared-counters.js';

/** KEYS[1] the window; ARGV now, windowMs, limit → ms to wait (0 while under the limit). */
const RETRY_AFTER = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then return 0 end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))
`;

/** KEYS[1] the window; ARGV now, windowMs, limit, a unique member. */
export const RECORD_EVENT = `
local function record(key, now, windowMs, limit, member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
  redis.call('ZADD', key, now, member)
  local excess = redis.call('ZCARD', key) - limit
  if excess > 0 then redis.call('ZREMRANGEBYRANK', key, 0, excess - 1) end
  redis.call('PEXPIRE', key, windowMs)
end
`;

const RECORD = `${RECORD_EVENT}
record(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4])
`;

/**
 * KEYS[1] the window; ARGV now, windowMs, limit, a unique member → 1 when recorded (under the
 * limit), 0 when the limit is reached (nothing recorded).
 */
const TAKE = `${RECORD_EVENT}
local now, windowMs, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
record(KEYS[1], now, windowMs, limit, ARGV[4])
return 1
`;

/** A member unique among instances for an event at `now` (two events in one millisecond both count). */
export function eventMember(now: number): string {
  return `${now}:${randomUUID()}`;
}

export class RedisSlidingWindow<K extends LimitKey> implements LimitWindow<K> {
  readonly #local: LocalLimitWindow<K>;

  constructor(
    private readonly counters: SharedCounters,
    private readonly name: string,
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#local = new LocalLimitWindow<K>(limit, windowMs, now);
  }

  async retryAfterMs(key: K): Promise<number> {
    const local = await this.#local.retryAfterMs(key);
    const shared = await this.counters.run((redis) =>
      redis.eval(RETRY_AFTER, 1, this.#key(key), this.now(), this.windowMs, this.limit),
    );
    return Math.max(local, Number(shared ?? 0));
  }

  async record(key: K): Promise<void> {
    await this.#local.record(key);
    const now = this.now();
    await this.counters.run((redis) =>
      redis.eval(RECORD, 1, this.#key(key), now, this.windowMs, this.limit, eventMember(now)),
    );
  }

  /**
   * This instance's own count first (a member over the budget here costs no Redis call), then
   * the shared one; when Redis does not answer, this instance's count decides alone.
   */
  async take(key: K): Promise<boolean> {
    if (!(await this.#local.take(key))) return false;
    const now = this.now();
    const taken = await this.counters.run((redis) =>
      redis.eval(TAKE, 1, this.#key(key), now, this.windowMs, this.limit, eventMember(now)),
    );
    if (taken === undefined || Number(taken) === 1) return true;
    await this.#local.unrecord(key);
    return false;
  }

  async unrecord(key: K): Promise<void> {
    await this.#local.unrecord(key);
    await this.counters.run((redis) => redis.zpopmax(this.#key(key)));
  }

  trackedKeys(): number {
    return this.#local.trackedKeys();
  }

  #key(key: K): string {
    return this.counters.key(this.name, key);
  }
}
