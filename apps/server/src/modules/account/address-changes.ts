/**
 * How often a member may ask to change their e-mail address. The answer to a taken address must
 * stay the spec's 409 "Email or username already in use", so probing who has an account through
 * it is made slow instead: a sliding hour per account and per client IP, in memory (per server
 * process), and every address-changing answer takes at least ADDRESS_CHANGE_MIN_MS, so a taken
 * and a free address cannot be told apart by the time the answer takes.
 */
import { SlidingWindowCounter } from '../../sliding-window.js';

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

export class AddressChangeLimiter {
  readonly #byAccount: SlidingWindowCounter<number>;
  readonly #byIp: SlidingWindowCounter<string>;

  constructor(
    readonly limits: AddressChangeLimits = ADDRESS_CHANGE_LIMITS,
    now: () => number = Date.now,
  ) {
    this.#byAccount = new SlidingWindowCounter(limits.perAccount, limits.windowMs, now);
    this.#byIp = new SlidingWindowCounter(limits.perIp, limits.windowMs, now);
  }

  /**
   * Takes one attempt for the member from this IP: 0 when allowed (and counted), otherwise the
   * milliseconds until one is (nothing counted).
   */
  take(userId: number, ip: string): number {
    const wait = Math.max(this.#byAccount.retryAfterMs(userId), this.#byIp.retryAfterMs(ip));
    if (wait > 0) return wait;
    this.#byAccount.record(userId);
    this.#byIp.record(ip);
    return 0;
  }

  /** Gives back the latest attempt: it revealed nothing (the current password was wrong). */
  refund(userId: number, ip: string): void {
    this.#byAccount.unrecord(userId);
    this.#byIp.unrecord(ip);
  }

  /** Number of accounts and IPs tracked (tests: memory stays bounded). */
  trackedKeys(): number {
    return this.#byAccount.size + this.#byIp.size;
  }
}
