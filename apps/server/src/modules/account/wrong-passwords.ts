/**
 * The budget of wrong current passwords per account (password change, details, deletion): whoever
 * holds a stolen access token must not be able to use those calls to guess the password behind
 * it. Counted per hour (limit-window.ts: in memory, or shared by every instance with REDIS_URL).
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { DomainError, minutesToWait, secondsToWait } from '../../domain-error.js';
import type { LimitWindow } from '../../limit-window.js';

export const WRONG_CURRENT_PASSWORDS_PER_HOUR = 10;
export const WRONG_CURRENT_PASSWORDS_WINDOW_MS = 60 * 60_000;

/** Whether a failure is a wrong (or missing) current password: those are what the budget counts. */
export const isWrongCurrentPassword = (error: unknown): boolean =>
  error instanceof DomainError && error.errorKey === ERROR_KEYS.wrongCurrentPassword;

function tooManyWrongPasswords(waitMs: number): DomainError {
  return new DomainError(
    'rate_limited',
    `Too many wrong passwords. Try again in ${minutesToWait(waitMs)}.`,
    ERROR_KEYS.tooManyRequests,
    { retryAfterSeconds: secondsToWait(waitMs) },
  );
}

export class WrongPasswordBudget {
  constructor(readonly window: LimitWindow<number>) {}

  /**
   * Runs an action that checks the member's current password: refused while the budget is spent
   * (even with the right password), and a wrong one counts.
   */
  async checking<T>(userId: number, action: () => Promise<T>): Promise<T> {
    const waitMs = await this.window.retryAfterMs(userId);
    if (waitMs > 0) throw tooManyWrongPasswords(waitMs);
    try {
      return await action();
    } catch (error) {
      if (isWrongCurrentPassword(error)) await this.window.record(userId);
      throw error;
    }
  }
}
