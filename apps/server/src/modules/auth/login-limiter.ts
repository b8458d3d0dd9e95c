/**
 * Failed-login limiter, in memory. Only FAILED attempts count, under three rules:
 * - per (account, IP): the first few failures are free, then every next attempt from that IP on
 *   that account waits a delay that doubles (1 s, 2 s, 4 s … up to 15 min). The count is kept while
 *   failures go on and forgotten after an hour without one, or by a success from that IP.
 * - per IP: 30 failures in a sliding 15 minutes, across accounts, block the IP until the oldest
 *   ages out (one address spraying many accounts).
 * - per account: from 100 failures in 15 minutes (a crowd of addresses on one account), an IP that
 *   has itself failed on the account gets the longest delay after each failure.
 * No rule ever slows an IP that has not failed on the account: someone else's wrong passwords
 * cannot lock the owner (or the admin) out.
 */

import { SlidingWindowCounter } from '../../sliding-window.js';

export interface LoginLimits {
  /** Sliding window of the per-IP and per-account counts. */
  windowMs: number;
  /** A (account, IP) count is forgotten after this long without a failure. */
  pairMemoryMs: number;
  /** Failures per (account, IP) before delays begin. */
  freeFailuresPerPair: number;
  firstDelayMs: number;
  maxDelayMs: number;
  /** Failures per IP (any accounts) within the window before the IP is blocked. */
  perIp: number;
  /** Failures on one account (any IPs) within the window from which the account is "under attack". */
  accountUnderAttack: number;
}

const MINUTE = 60_000;

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  windowMs: 15 * MINUTE,
  pairMemoryMs: 60 * MINUTE,
  freeFailuresPerPair: 5,
  firstDelayMs: 1000,
  maxDelayMs: 15 * MINUTE,
  perIp: 30,
  accountUnderAttack: 100,
};

/** Above this many tracked keys, expired ones are swept (bounds memory under a spray of e-mails). */
const SWEEP_THRESHOLD = 10_000;

export interface PairFailures {
  count: number;
  lastAt: number;
}

/** What is known of an attempt's account and IP: the one rule set for both stores. */
export interface LoginFailures {
  /** The (account, IP) failures, if still remembered. */
  pair: PairFailures | undefined;
  /** Whether the account has `accountUnderAttack` failures (any IPs) in the window. */
  accountUnderAttack: boolean;
  /** The per-IP window's wait (0 under the limit). */
  ipWaitMs: number;
}

/** Milliseconds until the next attempt is allowed under the rules above, or 0. */
export function loginWaitMs(limits: LoginLimits, failures: LoginFailures, now: number): number {
  const { pair } = failures;
  let wait = 0;
  if (pair) {
    const beyondFree = pair.count - limits.freeFailuresPerPair;
    if (beyondFree >= 0) {
      // 2^beyondFree overflows to Infinity long after the cap: Math.min still holds.
      const delay = Math.min(limits.firstDelayMs * 2 ** beyondFree, limits.maxDelayMs);
      wait = Math.max(wait, pair.lastAt + delay - now);
    }
    if (failures.accountUnderAttack) wait = Math.max(wait, pair.lastAt + limits.maxDelayMs - now);
  }
  return Math.max(0, wait, failures.ipWaitMs);
}

/**
 * The failed-login throttle as the auth service uses it: in memory (LocalLoginThrottle, one
 * process) or shared by every instance in Redis (scale-out/redis-login-throttle.ts).
 */
export interface LoginThrottle {
  retryAfterMs(email: string, ip: string): Promise<number>;
  recordFailure(email: string, ip: string): Promise<void>;
  recordSuccess(email: string, ip: string): Promise<void>;
  clearAccount(email: string): Promise<void>;
}

/** The in-memory throttle: this process's LoginLimiter. */
export class LocalLoginThrottle implements LoginThrottle {
  constructor(readonly limiter: LoginLimiter = new LoginLimiter()) {}

  async retryAfterMs(email: string, ip: string): Promise<number> {
    return this.limiter.retryAfterMs(email, ip);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    this.limiter.recordFailure(email, ip);
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    this.limiter.recordSuccess(email, ip);
  }

  async clearAccount(email: string): Promise<void> {
    this.limiter.clearAccount(email);
  }
}

interface AccountFailures {
  /** The most recent failures on the account from any IP (at most `accountUnderAttack` kept). */
  recent: number[];
  byIp: Map<string, PairFailures>;
}

export class LoginLimiter {
  readonly #accounts = new Map<string, AccountFailures>();
  /** Failures per IP across accounts. */
  readonly #ips: SlidingWindowCounter<string>;
  #sweepAtSize = SWEEP_THRESHOLD;
  #lastSweepAt: number;

  constructor(
    readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.#lastSweepAt = now();
    this.#ips = new SlidingWindowCounter(limits.perIp, limits.windowMs, now);
  }

  /** Milliseconds until the next attempt for this account from this IP is allowed, or 0 now. */
  retryAfterMs(email: string, ip: string): number {
    const now = this.now();
    const { limits } = this;
    const account = this.#accounts.get(accountKey(email));
    return loginWaitMs(
      limits,
      {
        pair: this.#livePair(account, ip, now),
        accountUnderAttack:
          account !== undefined && this.#inWindow(account.recent, now).length >= limits.accountUnderAttack,
        ipWaitMs: this.#ips.retryAfterMs(ip),
      },
      now,
    );
  }

  recordFailure(email: string, ip: string): void {
    const now = this.now();
    const key = accountKey(email);
    const account = this.#accounts.get(key) ?? { recent: [], byIp: new Map<string, PairFailures>() };
    this.#accounts.set(key, account);
    const pair = this.#livePair(account, ip, now);
    account.byIp.set(ip, { count: (pair?.count ?? 0) + 1, lastAt: now });
    account.recent = keepLast([...this.#inWindow(account.recent, now), now], this.limits.accountUnderAttack);
    this.#ips.record(ip);
    this.#maybeSweep(now);
  }

  /** The right password from this IP: its (account, IP) count starts afresh; the other counts stay. */
  recordSuccess(email: string, ip: string): void {
    this.#accounts.get(accountKey(email))?.byIp.delete(ip);
  }

  /** After a password reset: the old password's guessers have nothing left to guess. */
  clearAccount(email: string): void {
    this.#accounts.delete(accountKey(email));
  }

  /** Number of accounts and IPs tracked (tests: memory stays bounded). */
  trackedKeys(): number {
    return this.#accounts.size + this.#ips.size;
  }

  /** Number of stored failure records (tests: lists stay bounded). */
  trackedFailures(): number {
    let total = 0;
    for (const account of this.#accounts.values()) total += account.recent.length + account.byIp.size;
    total += this.#ips.storedEvents();
    return total;
  }

  #livePair(account: AccountFailures | undefined, ip: string, now: number): PairFailures | undefined {
    const pair = account?.byIp.get(ip);
    return pair && now - pair.lastAt < this.limits.pairMemoryMs ? pair : undefined;
  }

  #inWindow(list: number[] | undefined, now: number): number[] {
    const since = now - this.limits.windowMs;
    return (list ?? []).filter((at) => at > since);
  }

  #maybeSweep(now: number): void {
    const size = this.trackedKeys();
    if (size <= this.#sweepAtSize && now - this.#lastSweepAt < this.limits.windowMs) return;
    for (const [key, account] of this.#accounts) {
      for (const [ip, pair] of account.byIp) {
        if (now - pair.lastAt >= this.limits.pairMemoryMs) account.byIp.delete(ip);
      }
      account.recent = this.#inWindow(account.recent, now);
      if (account.recent.length === 0 && account.byIp.size === 0) this.#accounts.delete(key);
    }
    this.#lastSweepAt = now;
    // Sweeping again at every failure of a spray that is still live would be quadratic.
    this.#sweepAtSize = Math.max(SWEEP_THRESHOLD, 2 * this.trackedKeys());
  }
}

export function accountKey(email: string): string {
  return email.toLowerCase();
}

function keepLast(list: number[], max: number): number[] {
  return list.length > max ? list.slice(list.length - max) : list;
}
