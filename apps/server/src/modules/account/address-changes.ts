/**
 * How often a member may ask to change their e-mail address. The answer to a taken address must
 * stay the spec's 409 "Email or username already in use", so probing who has an account through
 * it is made slow instead: a sliding hour per account and per client IP, in memory (per server
 * process), and every address-changing answer takes at least ADDRESS_CHANGE_MIN_MS, so a taken
 * and a free address cannot be told apart by the time the answer takes.
 */

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
  readonly #attempts = new Map<string, number[]>();
  #lastSweepAt: number;

  constructor(
    readonly limits: AddressChangeLimits = ADDRESS_CHANGE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.#lastSweepAt = now();
  }

  /**
   * Takes one attempt for the member from this IP: 0 when allowed (and counted), otherwise the
   * milliseconds until one is (nothing counted).
   */
  take(userId: number, ip: string): number {
    const now = this.now();
    if (now - this.#lastSweepAt >= this.limits.windowMs) this.#sweep(now);
    const accountKey = `u:${userId}`;
    const ipKey = `i:${ip}`;
    const wait = Math.max(
      this.#wait(accountKey, this.limits.perAccount, now),
      this.#wait(ipKey, this.limits.perIp, now),
    );
    if (wait > 0) return wait;
    for (const key of [accountKey, ipKey]) this.#attempts.set(key, [...this.#recent(key, now), now]);
    return 0;
  }

  /** Gives back the latest attempt: it revealed nothing (the current password was wrong). */
  refund(userId: number, ip: string): void {
    for (const key of [`u:${userId}`, `i:${ip}`]) this.#attempts.get(key)?.pop();
  }

  /** Number of accounts and IPs tracked (tests: memory stays bounded). */
  trackedKeys(): number {
    return this.#attempts.size;
  }

  #recent(key: string, now: number): number[] {
    const since = now - this.limits.windowMs;
    return (this.#attempts.get(key) ?? []).filter((at) => at > since);
  }

  #wait(key: string, max: number, now: number): number {
    const recent = this.#recent(key, now);
    if (recent.length < max) return 0;
    const oldestBlocking = recent[recent.length - max] as number;
    return oldestBlocking + this.limits.windowMs - now;
  }

  #sweep(now: number): void {
    for (const key of [...this.#attempts.keys()]) {
      const recent = this.#recent(key, now);
      if (recent.length === 0) this.#attempts.delete(key);
      else this.#attempts.set(key, recent);
    }
    this.#lastSweepAt = now;
  }
}
