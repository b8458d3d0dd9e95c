import { describe, expect, it } from 'vitest';
import { localLimitWindows } from '../../limit-window.js';
import { ADDRESS_CHANGE_LIMITS, AddressChangeLimiter } from './address-changes.js';

const MINUTE = 60_000;

function limiterAt(start = 5_000_000) {
  const clock = { now: start };
  return {
    limiter: new AddressChangeLimiter(
      { perAccount: 3, perIp: 5, windowMs: 60 * MINUTE },
      localLimitWindows(() => clock.now),
    ),
    clock,
  };
}

describe('AddressChangeLimiter', () => {
  it('defaults to 5 per account and 20 per IP per hour', async () => {
    expect(ADDRESS_CHANGE_LIMITS).toEqual({ perAccount: 5, perIp: 20, windowMs: 60 * MINUTE });
  });

  it('lets an account take its budget, then answers how long until the oldest attempt ages out', async () => {
    const { limiter, clock } = limiterAt();
    for (let i = 0; i < 3; i++) {
      expect(await limiter.take(1, '1.1.1.1')).toBe(0);
      clock.now += MINUTE;
    }
    expect(await limiter.take(1, '2.2.2.2')).toBe(57 * MINUTE);
    // A refused attempt takes nothing: the wait does not grow.
    expect(await limiter.take(1, '2.2.2.2')).toBe(57 * MINUTE);
    clock.now += 57 * MINUTE;
    expect(await limiter.take(1, '2.2.2.2')).toBe(0);
  });

  it('limits an IP across accounts; other IPs and accounts are not affected', async () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 5; i++) expect(await limiter.take(100 + i, '3.3.3.3')).toBe(0);
    expect(await limiter.take(200, '3.3.3.3')).toBe(60 * MINUTE);
    expect(await limiter.take(200, '4.4.4.4')).toBe(0);
  });

  it('refund gives back an attempt that told nothing (wrong current password)', async () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 3; i++) {
      expect(await limiter.take(7, '5.5.5.5')).toBe(0);
      await limiter.refund(7, '5.5.5.5');
    }
    for (let i = 0; i < 3; i++) expect(await limiter.take(7, '5.5.5.5')).toBe(0);
    expect(await limiter.take(7, '5.5.5.5')).toBeGreaterThan(0);
  });

  it('forgets keys whose attempts aged out', async () => {
    const { limiter, clock } = limiterAt();
    for (let i = 0; i < 50; i++) await limiter.take(i, `10.0.0.${i}`);
    clock.now += 61 * MINUTE;
    await limiter.take(1000, '9.9.9.9');
    expect(limiter.trackedKeys()).toBe(2);
  });
});
