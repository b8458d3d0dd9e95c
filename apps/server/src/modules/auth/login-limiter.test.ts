import { describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_LIMITS, LoginLimiter, type LoginLimits } from './login-limiter.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A limiter on a clock the test moves. */
function limiterAt(limits: LoginLimits = DEFAULT_LOGIN_LIMITS, start = 1_000_000) {
  const clock = { now: start };
  const limiter = new LoginLimiter(limits, () => clock.now);
  return { limiter, clock };
}

/** Records `n` failures, each `gapMs` after the previous one. */
function fail(setup: ReturnType<typeof limiterAt>, email: string, ip: string, n: number, gapMs = 0): void {
  for (let i = 0; i < n; i++) {
    setup.limiter.recordFailure(email, ip);
    setup.clock.now += gapMs;
  }
}

describe('LoginLimiter defaults', () => {
  it('are 5 free failures per (account, IP), delays from 1 s doubling up to 15 min, 30 per IP, 100 per account, 15 min window', () => {
    expect(DEFAULT_LOGIN_LIMITS).toEqual({
      windowMs: 15 * MINUTE,
      pairMemoryMs: 60 * MINUTE,
      freeFailuresPerPair: 5,
      firstDelayMs: SECOND,
      maxDelayMs: 15 * MINUTE,
      perIp: 30,
      accountUnderAttack: 100,
    });
  });
});

describe('LoginLimiter per (account, IP)', () => {
  it('lets 5 failures through, then makes each next attempt wait 1 s, 2 s, 4 s … capped at 15 min', () => {
    const setup = limiterAt();
    const { limiter, clock } = setup;
    for (let i = 0; i < 5; i++) {
      expect(limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
      limiter.recordFailure('a@x.com', '1.1.1.1');
    }
    const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map((s) => s * SECOND);
    for (const delay of expected) {
      expect(limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(delay);
      clock.now += delay - 1;
      expect(limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(1);
      clock.now += 1;
      expect(limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
      limiter.recordFailure('a@x.com', '1.1.1.1');
    }
  });

  it('is case-insensitive on the e-mail', () => {
    const setup = limiterAt();
    fail(setup, 'A@X.com', '1.1.1.1', 5);
    expect(setup.limiter.retryAfterMs('a@x.COM', '1.1.1.1')).toBe(SECOND);
  });

  it('never slows the same account from another IP, nor another account from the same IP', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 20);
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBeGreaterThan(0);
    expect(setup.limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(0);
    expect(setup.limiter.retryAfterMs('b@x.com', '1.1.1.1')).toBe(0);
  });

  it('keeps counting while failures go on, and forgets an (account, IP) after an hour without one', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 7);
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(4 * SECOND);
    // A patient guesser at one try per 59 minutes is still counted…
    setup.clock.now += 59 * MINUTE;
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    fail(setup, 'a@x.com', '1.1.1.1', 1);
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(8 * SECOND);
    // …an hour of quiet starts afresh.
    setup.clock.now += 60 * MINUTE;
    fail(setup, 'a@x.com', '1.1.1.1', 4);
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    fail(setup, 'a@x.com', '1.1.1.1', 1);
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(SECOND);
  });

  it('a guesser who keeps going is held at one try per 15 min', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 30);
    for (let i = 0; i < 8; i++) {
      expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(15 * MINUTE);
      setup.clock.now += 15 * MINUTE;
      fail(setup, 'a@x.com', '1.1.1.1', 1);
    }
  });

  it('a success clears that (account, IP) only', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 7);
    fail(setup, 'a@x.com', '2.2.2.2', 7);
    setup.limiter.recordSuccess('A@x.com', '1.1.1.1');
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    expect(setup.limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(4 * SECOND);
  });

  it('clearAccount (a password reset) forgets every counter of the account', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 7);
    fail(setup, 'a@x.com', '2.2.2.2', 7);
    setup.limiter.clearAccount('A@X.com');
    expect(setup.limiter.retryAfterMs('a@x.com', '1.1.1.1')).toBe(0);
    expect(setup.limiter.retryAfterMs('a@x.com', '2.2.2.2')).toBe(0);
  });
});

describe('LoginLimiter per IP', () => {
  it('blocks an IP after 30 failures across accounts until the oldest ages out', () => {
    const setup = limiterAt();
    for (let i = 0; i < 30; i++) {
      expect(setup.limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(0);
      setup.limiter.recordFailure(`u${i}@x.com`, '2.2.2.2');
      setup.clock.now += SECOND;
    }
    // The first failure was 30 s ago: it ages out in 14 min 30 s.
    expect(setup.limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(15 * MINUTE - 30 * SECOND);
    expect(setup.limiter.retryAfterMs('fresh@x.com', '3.3.3.3')).toBe(0);
    // A success does not clear the IP's count.
    setup.limiter.recordSuccess('u1@x.com', '2.2.2.2');
    expect(setup.limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBeGreaterThan(0);
    setup.clock.now += 15 * MINUTE - 30 * SECOND;
    expect(setup.limiter.retryAfterMs('fresh@x.com', '2.2.2.2')).toBe(0);
  });
});

describe('LoginLimiter per account (a crowd of IPs)', () => {
  it('under 100 failures in the window, IPs that failed once are not slowed', () => {
    const setup = limiterAt();
    for (let i = 0; i < 99; i++) fail(setup, 'boss@x.com', `10.0.0.${i}`, 1);
    expect(setup.limiter.retryAfterMs('boss@x.com', '10.0.0.1')).toBe(0);
  });

  it('from 100 failures on, an IP that failed on the account waits 15 min after its last failure; an IP that never failed is let in', () => {
    const setup = limiterAt();
    for (let i = 0; i < 100; i++) fail(setup, 'boss@x.com', `10.0.${Math.floor(i / 250)}.${i % 250}`, 1);
    expect(setup.limiter.retryAfterMs('boss@x.com', '10.0.0.1')).toBe(15 * MINUTE);
    // The owner, from an address that never failed on this account.
    expect(setup.limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(0);
    // Another account from a crowd address: not affected.
    expect(setup.limiter.retryAfterMs('other@x.com', '10.0.0.1')).toBe(0);
    // The owner's one typo from their address then counts them in.
    setup.limiter.recordFailure('boss@x.com', '192.0.2.7');
    expect(setup.limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(15 * MINUTE);
    // …and a success there clears it again.
    setup.limiter.recordSuccess('boss@x.com', '192.0.2.7');
    expect(setup.limiter.retryAfterMs('boss@x.com', '192.0.2.7')).toBe(0);
  });

  it('once the crowd’s failures age out, the account is back to the per-(account, IP) rule', () => {
    const setup = limiterAt();
    for (let i = 0; i < 100; i++) fail(setup, 'boss@x.com', `10.1.0.${i}`, 1);
    setup.clock.now += 15 * MINUTE;
    expect(setup.limiter.retryAfterMs('boss@x.com', '10.1.0.1')).toBe(0);
  });
});

describe('LoginLimiter memory', () => {
  it('keeps bounded lists and sweeps expired keys', () => {
    const setup = limiterAt();
    fail(setup, 'a@x.com', '1.1.1.1', 10_000);
    expect(setup.limiter.trackedFailures()).toBeLessThan(200);
    for (let i = 0; i < 12_000; i++)
      setup.limiter.recordFailure(`spray-${i}@x.com`, `10.2.${i >> 8}.${i & 255}`);
    // Past the window the IPs go; past the pair memory (an hour) the accounts go too.
    setup.clock.now += 16 * MINUTE;
    setup.limiter.recordFailure('last@x.com', '1.1.1.1');
    expect(setup.limiter.trackedKeys()).toBeLessThan(12_010);
    setup.clock.now += 45 * MINUTE;
    setup.limiter.recordFailure('last@x.com', '1.1.1.1');
    expect(setup.limiter.trackedKeys()).toBeLessThan(10);
  });
});
