/**
 * The failed-login throttle shared by every instance (issue 15): ten wrong passwords on one
 * instance slow the next attempt on any other. The same rules as the in-memory LoginLimiter
 * (login-limiter.ts, `loginWaitMs`), its state in Redis:
 * - `login-pairs:<email>`: a hash of the account's failing IPs, `<ip>|n` (count) and `<ip>|at`
 *   (last failure), expiring an hour (pairMemoryMs) after the account's last failure; a pair
 *   whose last failure is older than that counts as forgotten, as in memory;
 * - `login-account:<email>` and `login-ip:<ip>`: sliding windows (sorted sets of times).
 * A failure updates all three in one Lua script; the check reads them in one MULTI. The local
 * LoginLimiter still counts everything this instance sees: it is the floor while Redis is down
 * (fail open for the shared part, logged once).
 */
import {
  accountKey,
  DEFAULT_LOGIN_LIMITS,
  LoginLimiter,
  type LoginLimits,
  type LoginThrottle,
  loginWaitMs,
} from '../modules/auth/login-limiter.js';
import { eventMember, RECORD_EVENT } from './redis-sliding-window.js';
import type { SharedCounters } from './shared-counters.js';

/** KEYS pairs, account, ip; ARGV now, windowMs, pairMemoryMs, ip, accountLimit, ipLimit, member. */
const RECORD_FAILURE = `${RECORD_EVENT}
local now = tonumber(ARGV[1])
local memory = tonumber(ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[4] .. '|at') or '0')
local count = 0
if now - last < memory then count = tonumber(redis.call('HGET', KEYS[1], ARGV[4] .. '|n') or '0') end
redis.call('HSET', KEYS[1], ARGV[4] .. '|n', count + 1, ARGV[4] .. '|at', now)
redis.call('PEXPIRE', KEYS[1], memory)
record(KEYS[2], now, tonumber(ARGV[2]), tonumber(ARGV[5]), ARGV[7])
record(KEYS[3], now, tonumber(ARGV[2]), tonumber(ARGV[6]), ARGV[7] .. ':ip')
`;

export class RedisLoginThrottle implements LoginThrottle {
  /** What this instance saw itself: the floor while Redis is down. */
  readonly local: LoginLimiter;

  constructor(
    private readonly counters: SharedCounters,
    readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.local = new LoginLimiter(limits, now);
  }

  async retryAfterMs(email: string, ip: string): Promise<number> {
    const local = this.local.retryAfterMs(email, ip);
    const now = this.now();
    const since = now - this.limits.windowMs;
    const keys = this.#keys(email, ip);
    const replies = await this.counters.run((redis) =>
      redis
        .multi()
        .hmget(keys.pairs, `${ip}|n`, `${ip}|at`)
        .zcount(keys.account, `(${since}`, '+inf')
        .zrangebyscore(keys.ip, `(${since}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
        .zcount(keys.ip, `(${since}`, '+inf')
        .exec(),
    );
    if (!replies || replies.some(([error]) => error)) return local;
    const [pairFields, accountCount, ipOldest, ipCount] = replies.map(([, value]) => value) as [
      Array<string | null>,
      number,
      string[],
      number,
    ];
    const [count, lastAt] = pairFields.map(Number) as [number, number];
    const pair = count > 0 && now - lastAt < this.limits.pairMemoryMs ? { count, lastAt } : undefined;
    const oldestIpFailure = Number(ipOldest[1] ?? now);
    const ipWaitMs =
      ipCount >= this.limits.perIp ? Math.max(1, oldestIpFailure + this.limits.windowMs - now) : 0;
    const shared = loginWaitMs(
      this.limits,
      { pair, accountUnderAttack: accountCount >= this.limits.accountUnderAttack, ipWaitMs },
      now,
    );
    return Math.max(local, shared);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    this.local.recordFailure(email, ip);
    const now = this.now();
    const keys = this.#keys(email, ip);
    const { windowMs, pairMemoryMs, accountUnderAttack, perIp } = this.limits;
    await this.counters.run((redis) =>
      redis.eval(
        RECORD_FAILURE,
        3,
        keys.pairs,
        keys.account,
        keys.ip,
        now,
        windowMs,
        pairMemoryMs,
        ip,
        accountUnderAttack,
        perIp,
        eventMember(now),
      ),
    );
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    this.local.recordSuccess(email, ip);
    const { pairs } = this.#keys(email, ip);
    await this.counters.run((redis) => redis.hdel(pairs, `${ip}|n`, `${ip}|at`));
  }

  async clearAccount(email: string): Promise<void> {
    this.local.clearAccount(email);
    const { pairs, account } = this.#keys(email, '');
    await this.counters.run((redis) => redis.del(pairs, account));
  }

  #keys(email: string, ip: string) {
    const account = accountKey(email);
    return {
      pairs: this.counters.key('login-pairs', account),
      account: this.counters.key('login-account', account),
      ip: this.counters.key('login-ip', ip),
    };
  }
}
