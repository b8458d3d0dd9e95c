/**
 * How often a member may ask to change their e-mail address. The answer to a taken address must
 * stay the spec's 409 "Email or username already in use", so probing who has an account through
 * it is made slow instead: an hour per account and per client IP (limit-window.ts: in memory, or
 * shared by every instance with REDIS_URL), and every address-changing answer takes at least
 * ADDRESS_CHANGE_MIN_MS, so a taken
 * and a free address cannot be told apart by the time the answer takes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ERROR_KEYS } from '@telerace/protocol';
import { DomainError, minutesToWait, secondsToWait } from '../../domain-error.js';
import {
  type LimitWindow,
  type LimitWindowFactory,
  limitWindows,
  memoryLimiters,
} from '../../limit-window.js';
import { isWrongCurrentPassword } from './wrong-passwords.js';

export interface AddressChangeLimits {
  perAccount: number;
  perIp: number;
  windowMs: number;
}

export const ADDRESS_CHANGE_LIMITS: AddressChangeLimits = { perAccount: 5, perIp: 20, windowMs: 60 * 60_000 };

/**
 * The least time an address-changing answer takes, whatever its outcome. Above the argon2
 * verification of the current password plus the writes of a successful change (together about
 * 15–50 ms here), so both outcomes end at the same moment.
 */
export const ADDRESS_CHANGE_MIN_MS = 250;

function tooManyAddressChanges(waitMs: number): DomainError {
  return new DomainError(
    'rate_limited',
    `Too many address changes. Try again in ${minutesToWait(waitMs)}.`,
    ERROR_KEYS.tooManyRequests,
    { retryAfterSeconds: secondsToWait(waitMs) },
  );
}

export class AddressChangeLimiter {
  readonly #byAccount: LimitWindow<number>;
  readonly #byIp: LimitWindow<string>;

  readonly limits: AddressChangeLimits;

  constructor(deps: { limits?: AddressChangeLimits; windows?: LimitWindowFactory } = {}) {
    const { limits = ADDRESS_CHANGE_LIMITS, windows = limitWindows(memoryLimiters) } = deps;
    this.limits = limits;
    this.#byAccount = windows('address-changes-account', limits.perAccount, limits.windowMs);
    this.#byIp = windows('address-changes-ip', limits.perIp, limits.windowMs);
  }

  /**
   * Takes one attempt for the member from this IP: 0 when allowed (and counted), otherwise the
   * milliseconds until one is (nothing counted).
   */
  async take(userId: number, ip: string): Promise<number> {
    const [byAccount, byIp] = await Promise.all([
      this.#byAccount.retryAfterMs(userId),
      this.#byIp.retryAfterMs(ip),
    ]);
    const wait = Math.max(byAccount, byIp);
    if (wait > 0) return wait;
    await Promise.all([this.#byAccount.record(userId), this.#byIp.record(ip)]);
    return 0;
  }

  /**
   * Runs an address-changing action within the limits: refused (`rate_limited`) once the account's
   * or the IP's hour is spent; a wrong current password gives its attempt back (it told nothing
   * about the address); and the answer, whatever it is, leaves no sooner than
   * ADDRESS_CHANGE_MIN_MS after the action started. That floor is wall time on purpose: it hides
   * what a prober measures, so it does not follow the domain's Clock.
   */
  async guard<T>(userId: number, ip: string, action: () => Promise<T>): Promise<T> {
    const waitMs = await this.take(userId, ip);
    if (waitMs > 0) throw tooManyAddressChanges(waitMs);
    const started = performance.now();
    try {
      return await action();
    } catch (error) {
      if (isWrongCurrentPassword(error)) await this.refund(userId, ip);
      throw error;
    } finally {
      // Taken (409) or free (200): both answers leave at the same moment.
      const rest = ADDRESS_CHANGE_MIN_MS - (performance.now() - started);
      if (rest > 0) await sleep(rest);
    }
  }

  /** Gives back the latest attempt: it revealed nothing (the current password was wrong). */
  async refund(userId: number, ip: string): Promise<void> {
    await Promise.all([this.#byAccount.unrecord(userId), this.#byIp.unrecord(ip)]);
  }
}
