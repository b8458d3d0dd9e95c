/**
 * Failed-login limiter: a sliding window of FAILED attempts per account (lower-cased e-mail) and
 * per client IP, in memory. A success clears the account's counter. Old attempts simply age out,
 * so the real owner is never locked out for longer than the window.
 */

export interface LoginLimits {
  perAccount: number;
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perAccount: 10, perIp: 30, windowMs: 15 * 60_000 };

/** Above this many tracked keys, expired ones are swept (bounds memory under a spray of e-mails). */
const SWEEP_THRESHOLD = 10_000;

export class LoginLimiter {
  readonly #failures = new Map<string, number[]>();

  constructor(
    readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the next attempt is allowed, or 0 when it is allowed now. */
  retryAfterMs(email: string, ip: string): number {
    return Math.max(
      this.#wait(`a:${email.toLowerCase()}`, this.limits.perAccount),
      this.#wait(`i:${ip}`, this.limits.perIp),
    );
  }

  recordFailure(email: string, ip: string): void {
    const at = this.now();
    for (const key of [`a:${email.toLowerCase()}`, `i:${ip}`]) {
      const list = this.#recent(key);
      list.push(at);
      this.#failures.set(key, list);
    }
    if (this.#failures.size > SWEEP_THRESHOLD) this.#sweep();
  }

  /** After a successful login (or a password reset): the account starts afresh. */
  clearAccount(email: string): void {
    this.#failures.delete(`a:${email.toLowerCase()}`);
  }

  #recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    return (this.#failures.get(key) ?? []).filter((at) => at > since);
  }

  #wait(key: string, max: number): number {
    const list = this.#recent(key);
    if (list.length === 0) this.#failures.delete(key);
    if (list.length < max) return 0;
    // The attempt that must age out for the count to drop under the limit.
    const oldestBlocking = list[list.length - max] as number;
    return Math.max(1, oldestBlocking + this.limits.windowMs - this.now());
  }

  #sweep(): void {
    for (const key of [...this.#failures.keys()]) {
      const list = this.#recent(key);
      if (list.length === 0) this.#failures.delete(key);
      else this.#failures.set(key, list);
    }
  }
}
