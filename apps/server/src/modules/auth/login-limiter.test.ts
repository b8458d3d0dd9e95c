import { describe, expect, it } from 'vitest';
import { LoginLimiter } from './login-limiter.js';

describe('LoginLimiter', () => {
  const limits = { perAccount: 3, perIp: 5, windowMs: 60_000 };

  it('blocks an account after its failures and lets it in again once they age out', () => {
    let now = 1_000_000;
    const limiter = new LoginLimiter(limits, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterMs('A@x.com', '1.1.1.1')).toBe(0);
      limiter.recordFailure('a@x.com', `1.1.1.${i}`);
      now += 1_000;
    }
    // Case-insensitive, and from any address.
    expect(limiter.retryAfterMs('a@X.com', '9.9.9.9')).toBe(57_000);
    now += 57_000;
    expect(limiter.retryAfterMs('a@x.com', '9.9.9.9')).toBe(0);
  });

  it('blocks an IP after its failures across accounts; a success clears only the account', () => {
    const now = 0;
    const limiter = new LoginLimiter(limits, () => now);
    for (let i = 0; i < 5; i++) limiter.recordFailure(`u${i}@x.com`, '2.2.2.2');
    expect(limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBeGreaterThan(0);
    expect(limiter.retryAfterMs('fresh@x.com', '3.3.3.3')).toBe(0);
    limiter.recordFailure('b@x.com', '4.4.4.4');
    limiter.recordFailure('b@x.com', '4.4.4.4');
    limiter.recordFailure('b@x.com', '4.4.4.4');
    expect(limiter.retryAfterMs('b@x.com', '5.5.5.5')).toBeGreaterThan(0);
    limiter.clearAccount('B@x.com');
    expect(limiter.retryAfterMs('b@x.com', '5.5.5.5')).toBe(0);
  });
});
