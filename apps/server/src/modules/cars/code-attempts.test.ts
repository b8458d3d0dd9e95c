import { describe, expect, it } from 'vitest';
import { CodeAttemptBudget } from './code-attempts.js';

const MINUTE = 60_000;

function budget(limit = 3, windowMs = 60 * MINUTE) {
  let now = 1_000_000;
  const attempts = new CodeAttemptBudget(limit, windowMs, () => now);
  return {
    attempts,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('CodeAttemptBudget', () => {
  it('allows `limit` failures, then waits until the oldest leaves the window', () => {
    const { attempts, advance } = budget();
    attempts.recordFailure(1);
    advance(10 * MINUTE);
    attempts.recordFailure(1);
    expect(attempts.retryAfterMs(1)).toBe(0);
    attempts.recordFailure(1);
    expect(attempts.retryAfterMs(1)).toBe(50 * MINUTE);
    advance(50 * MINUTE - 1);
    expect(attempts.retryAfterMs(1)).toBe(1);
    advance(1);
    // The first failure aged out: one more try, then the second one decides.
    expect(attempts.retryAfterMs(1)).toBe(0);
    attempts.recordFailure(1);
    expect(attempts.retryAfterMs(1)).toBe(10 * MINUTE);
  });

  it('keeps members apart', () => {
    const { attempts } = budget(1);
    attempts.recordFailure(1);
    expect(attempts.retryAfterMs(1)).toBeGreaterThan(0);
    expect(attempts.retryAfterMs(2)).toBe(0);
  });

  it('forgets a member once their failures are an hour old', () => {
    const { attempts, advance } = budget(2);
    attempts.recordFailure(7);
    attempts.recordFailure(7);
    advance(60 * MINUTE);
    expect(attempts.retryAfterMs(7)).toBe(0);
    attempts.recordFailure(7);
    expect(attempts.retryAfterMs(7)).toBe(0);
  });
});
