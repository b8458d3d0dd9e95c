/**
 * The failed-login throttle in memory. rate-limiter-flexible reads Date.now and expires keys with
 * timers, so these unit tests move fake timers (no server here); the routes' tests run it for real.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LOGIN_LIMITS, LoginThrottle } from './login-limiter.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

let limiter: LoginThrottle;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: 1_000_000 });
  limiter = new LoginThrottle();
});
afterEach(() => {
  vi.useRealTimers();
});

const advance = (ms: number) => vi.advanceTimersByTime(ms);

/** Records `n` failures, each `gapMs` after the previous one. */
async function fail(email: string, ip: string, n: number, gapMs = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    await limiter.recordFailure(email, ip);
    advance(gapMs);
  }
}

describe('LoginThrottle defaults', () => {
  it('are 5 free failures per (account, IP) kept a day, delays from 1 s doubling up to 15 min, 30 per IP, 100 per account, 15 min window', () => {
    expect(DEFAULT_LOGIN_LIMITS).toEqual({
      windowMs: 15 * MINUTE,
      pairMemoryMs: 24 * 60 * MINUTE,
      freeFailuresPerPair: 5,
      firstDelayMs: SECOND,
      maxDelayMs: 15 * MINUTE,
      perIp: 30,
      accountUnderAttack: 100,
    });
  });
});

describe('LoginThrottle per (account, IP)', () => {
  it('lets 5 failures through, then makes each next attempt wait 1 s, 2 s, 4 s … capped at 15 min', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
      await limiter.recordFailure('a@x.com', '1.1.1.1');
    }
    const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map((s) => s * SECOND);
    for (const delay of expected) {
      expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(delay);
      advance(delay - 1);
      expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(1);
      advance(1);
      expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
      await limiter.recordFailure('a@x.com', '1.1.1.1');
    }
  });

  it('is case-insensitive on the e-mail', async () => {
    await fail('A@X.com', '1.1.1.1', 5);
    expect(await limiter.retryAfterMs('a@x.COM', '1.1.1.1')).toBe(SECOND);
  });

  it('never slows the same account from another IP, nor another account from the same IP', async () => {
    await fail('a@x.com', '1.1.1.1', 20);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBeGreaterThan(0);
    expect(await limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(0);
    expect(await limiter.retryAfterMs('b@x.com', '1.1.1.1')).toBe(0);
  });

  it('keeps counting while failures go on, and forgets an (account, IP) a day after its first failure', async () => {
    await fail('a@x.com', '1.1.1.1', 7);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(4 * SECOND);
    // A patient guesser at one try per 59 minutes is still counted…
    advance(59 * MINUTE);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    await fail('a@x.com', '1.1.1.1', 1);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(8 * SECOND);
    // …a day after the first failure it starts afresh.
    advance(24 * 60 * MINUTE - 59 * MINUTE);
    await fail('a@x.com', '1.1.1.1', 4);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    await fail('a@x.com', '1.1.1.1', 1);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(SECOND);
  });

  it('a guesser who keeps going is held at one try per 15 min', async () => {
    await fail('a@x.com', '1.1.1.1', 30);
    for (let i = 0; i < 8; i++) {
      expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(15 * MINUTE);
      advance(15 * MINUTE);
      await fail('a@x.com', '1.1.1.1', 1);
    }
  });

  it('a success clears that (account, IP) only', async () => {
    await fail('a@x.com', '1.1.1.1', 7);
    await fail('a@x.com', '2.2.2.2', 7);
    await limiter.recordSuccess('A@x.com', '1.1.1.1');
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    expect(await limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(4 * SECOND);
  });

  it('clearAccount (a password reset) forgets every counter of the account; new failures count afresh', async () => {
    await fail('a@x.com', '1.1.1.1', 7);
    await fail('a@x.com', '2.2.2.2', 7);
    await limiter.clearAccount('A@X.com');
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    expect(await limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(0);
    advance(1);
    await fail('a@x.com', '1.1.1.1', 4);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    await fail('a@x.com', '1.1.1.1', 1);
    expect(await limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(SECOND);
  });
});

describe('LoginThrottle per IP', () => {
  it('blocks an IP after 30 failures across accounts until 15 min after its first one', async () => {
    for (let i = 0; i < 30; i++) {
      expect(await limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(0);
      await limiter.recordFailure(`u${i}@x.com`, '2.2.2.2');
      advance(SECOND);
    }
    // The first failure was 30 s ago: the window ends in 14 min 30 s.
    expect(await limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(15 * MINUTE - 30 * SECOND);
    expect(await limiter.retryAfterMs('fresh@x.com', '3.3.3.3')).toBe(0);
    // A success does not clear the IP's count.
    await limiter.recordSuccess('u1@x.com', '2.2.2.2');
    expect(await limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBeGreaterThan(0);
    advance(15 * MINUTE - 30 * SECOND);
    expect(await limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(0);
  });
});

describe('LoginThrottle per account (a crowd of IPs)', () => {
  it('under 100 failures in the window, IPs that failed once are not slowed', async () => {
    for (let i = 0; i < 99; i++) await fail('boss@x.com', `10.0.0.${i}`, 1);
    expect(await limiter.retryAfterMs('boss@x.com', '10.0.0.1')).toBe(0);
  });

  it('from 100 failures on, an IP that failed on the account waits 15 min; an IP that never failed is let in', async () => {
    for (let i = 0; i < 100; i++) await fail('boss@x.com', `10.0.${Math.floor(i / 250)}.${i % 250}`, 1);
    expect(await limiter.retryAfterMs('boss@x.com', '10.0.0.1')).toBe(15 * MINUTE);
    // The owner, from an address that never failed on this account.
    expect(await limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(0);
    // Another account from a crowd address: not affected.
    expect(await limiter.retryAfterMs('other@x.com', '10.0.0.1')).toBe(0);
    // The owner's one typo from their address then counts them in…
    await limiter.recordFailure('boss@x.com', '192.0.2.7');
    expect(await limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(15 * MINUTE);
    // …and a success there clears it again.
    await limiter.recordSuccess('boss@x.com', '192.0.2.7');
    expect(await limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(0);
  });

  it('once the crowd’s window ends, the account is back to the per-(account, IP) rule', async () => {
    for (let i = 0; i < 100; i++) await fail('boss@x.com', `10.1.0.${i}`, 1);
    advance(15 * MINUTE);
    expect(await limiter.retryAfterMs('boss@x.com', '10.1.0.1')).toBe(0);
  });
});
