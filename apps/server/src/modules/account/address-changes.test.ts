/**
 * The address-change budget in memory. rate-limiter-flexible reads Date.now and expires keys with
 * timers, so these unit tests move fake timers (no server here); account.test.ts runs it through
 * real HTTP.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ADDRESS_CHANGE_LIMITS, AddressChangeLimiter } from './address-changes.js';

const MINUTE = 60_000;

let limiter: AddressChangeLimiter;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: 5_000_000 });
  limiter = new AddressChangeLimiter({ limits: { perAccount: 3, perIp: 5, windowMs: 60 * MINUTE } });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('AddressChangeLimiter', () => {
  it('defaults to 5 per account and 20 per IP per hour', async () => {
    expect(ADDRESS_CHANGE_LIMITS).toEqual({ perAccount: 5, perIp: 20, windowMs: 60 * MINUTE });
  });

  it('lets an account take its budget, then answers how long until its hour ends', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await limiter.take(1, '1.1.1.1')).toBe(0);
      vi.advanceTimersByTime(MINUTE);
    }
    expect(await limiter.take(1, '2.2.2.2')).toBe(57 * MINUTE);
    // A refused attempt takes nothing: the wait does not grow.
    expect(await limiter.take(1, '2.2.2.2')).toBe(57 * MINUTE);
    vi.advanceTimersByTime(57 * MINUTE);
    expect(await limiter.take(1, '2.2.2.2')).toBe(0);
  });

  it('limits an IP across accounts; other IPs and accounts are not affected', async () => {
    for (let i = 0; i < 5; i++) expect(await limiter.take(100 + i, '3.3.3.3')).toBe(0);
    expect(await limiter.take(200, '3.3.3.3')).toBe(60 * MINUTE);
    expect(await limiter.take(200, '4.4.4.4')).toBe(0);
  });

  it('refund gives back an attempt that told nothing (wrong current password)', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await limiter.take(7, '5.5.5.5')).toBe(0);
      await limiter.refund(7, '5.5.5.5');
    }
    for (let i = 0; i < 3; i++) expect(await limiter.take(7, '5.5.5.5')).toBe(0);
    expect(await limiter.take(7, '5.5.5.5')).toBeGreaterThan(0);
  });
});
