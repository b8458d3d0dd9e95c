/**
 * The failed-login throttle, on rate-limiter-flexible (its consecutive-failures login protection:
 * a counter per (account, IP) that a success deletes, and a block the counter sets). Only FAILED
 * attempts count, under three rules:
 * - per (account, IP): the first few failures are free, then every next attempt from that IP on
 *   that account waits a delay that doubles (1 s, 2 s, 4 s … up to 15 min), a block set at each
 *   failure. The count is forgotten a day after the pair's first failure, or by a success from
 *   that IP, or by a password reset.
 * - per IP: 30 failures in 15 minutes, across accounts, block the IP until that window ends (one
 *   address spraying many accounts).
 * - per account: from 100 failures in 15 minutes (a crowd of addresses on one account), an IP that
 *   has itself failed on the account waits the longest delay while that lasts, and after each
 *   failure.
 * No rule ever slows an IP that has not failed on the account: someone else's wrong passwords
 * cannot lock the owner (or the admin) out. The counts are in memory or shared by every instance
 * in Redis, whichever the store is (scale-out/limit-stores.ts).
 */
import { backoffDelay } from '@telerace/protocol';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import { type LimiterStore, memoryLimiters } from '../../limit-window.js';

export interface LoginLimits {
  /** Window of the per-IP and per-account counts. */
  windowMs: number;
  /** A (account, IP) count is forgotten this long after its first failure. */
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
  // Counted from the first failure (the library's windows are fixed): a day, so a patient guesser
  // does not start afresh every hour; a success or a password reset forgets it sooner.
  pairMemoryMs: 24 * 60 * MINUTE,
  freeFailuresPerPair: 5,
  firstDelayMs: 1000,
  maxDelayMs: 15 * MINUTE,
  perIp: 30,
  accountUnderAttack: 100,
};

/** The delay after a pair's `count`th failure (0 while failures are free). */
function pairDelayMs(limits: LoginLimits, count: number): number {
  const beyondFree = count - limits.freeFailuresPerPair;
  return beyondFree < 0
    ? 0
    : backoffDelay({ initialMs: limits.firstDelayMs, maxMs: limits.maxDelayMs }, beyondFree);
}

export class LoginThrottle {
  /** Failures per (account, IP). */
  readonly #pairs;
  /** The wait a pair's last failure set. */
  readonly #delays;
  readonly #ips;
  readonly #accounts;
  /**
   * An account's last password reset, kept as long as a pair: a pair whose first failure came
   * before it is forgotten (the store cannot list an account's pairs to delete them).
   */
  readonly #resets;

  readonly limits: LoginLimits;

  constructor(deps: { store?: LimiterStore; limits?: LoginLimits } = {}) {
    const { store = memoryLimiters, limits = DEFAULT_LOGIN_LIMITS } = deps;
    this.limits = limits;
    this.#pairs = store('login-pairs', limits.freeFailuresPerPair, limits.pairMemoryMs);
    this.#delays = store('login-delays', 1, limits.maxDelayMs);
    this.#ips = store('login-ip', limits.perIp, limits.windowMs);
    this.#accounts = store('login-account', limits.accountUnderAttack, limits.windowMs);
    this.#resets = store('login-resets', 1, limits.pairMemoryMs);
  }

  /**
   * Milliseconds until the next attempt for this account from this IP is allowed, or 0 now. One
   * round of reads (in Redis, at once): a hung Redis costs a login one command timeout here.
   */
  async retryAfterMs(email: string, ip: string): Promise<number> {
    const account = accountKey(email);
    const pair = pairKey(account, ip);
    const [delay, ipCount, accountCount, pairCount, reset] = await Promise.all([
      this.#delays.get(pair),
      this.#ips.get(ip),
      this.#accounts.get(account),
      this.#pairs.get(pair),
      this.#resets.get(account),
    ]);
    if (!pairCount || forgottenByReset(pairCount, reset)) return ipWaitMs(this.limits, ipCount);
    let wait = Math.max(delay?.msBeforeNext ?? 0, ipWaitMs(this.limits, ipCount));
    if ((accountCount?.consumedPoints ?? 0) >= this.limits.accountUnderAttack) {
      wait = Math.max(wait, Math.min(this.limits.maxDelayMs, accountCount?.msBeforeNext ?? 0));
    }
    return wait;
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const account = accountKey(email);
    const pair = pairKey(account, ip);
    const [pairBefore, reset] = await Promise.all([this.#pairs.get(pair), this.#resets.get(account)]);
    const restart = pairBefore !== null && forgottenByReset(pairBefore, reset);
    const [pairCount, accountCount] = await Promise.all([
      restart ? this.#pairs.set(pair, 1, this.limits.pairMemoryMs / 1000) : this.#pairs.penalty(pair),
      this.#accounts.penalty(account),
      this.#ips.penalty(ip),
      restart ? this.#delays.delete(pair) : null,
    ]);
    const underAttack = accountCount.consumedPoints >= this.limits.accountUnderAttack;
    const delayMs = underAttack ? this.limits.maxDelayMs : pairDelayMs(this.limits, pairCount.consumedPoints);
    if (delayMs > 0) await this.#delays.block(pair, delayMs / 1000);
  }

  /** The right password from this IP: its (account, IP) count starts afresh; the other counts stay. */
  async recordSuccess(email: string, ip: string): Promise<void> {
    const pair = pairKey(accountKey(email), ip);
    await Promise.all([this.#pairs.delete(pair), this.#delays.delete(pair)]);
  }

  /** After a password reset: the old password's guessers have nothing left to guess. */
  async clearAccount(email: string): Promise<void> {
    const account = accountKey(email);
    await Promise.all([
      this.#resets.set(account, 1, this.limits.pairMemoryMs / 1000),
      this.#accounts.delete(account),
    ]);
  }
}

const pairKey = (account: string, ip: string) => `${account}|${ip}`;

/**
 * Whether a pair's count began before the account's last reset (or in its millisecond): both live
 * pairMemoryMs from when they were set, so the one that ends sooner began sooner.
 */
function forgottenByReset(pair: RateLimiterRes, reset: RateLimiterRes | null): boolean {
  return reset !== null && pair.msBeforeNext <= reset.msBeforeNext;
}

function ipWaitMs(limits: LoginLimits, ipCount: RateLimiterRes | null): number {
  return ipCount && ipCount.consumedPoints >= limits.perIp ? ipCount.msBeforeNext : 0;
}

function accountKey(email: string): string {
  return email.toLowerCase();
}
