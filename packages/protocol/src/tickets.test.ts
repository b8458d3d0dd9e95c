import { describe, expect, it } from 'vitest';
import { LOYALTY_TIERS, TICKETS } from './constants.js';
import { computeTickets, isDonationLive, loyaltyTickets } from './tickets.js';

const now = new Date('2026-06-01T12:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 24 * 60 * 60 * 1000);
const base = { linkedAccounts: 0, activeSubscriptionMonths: [], donations: [], adjustments: 0, now };

describe('loyaltyTickets', () => {
  it.each([
    [0, 5],
    [0.9, 5],
    [1, 15],
    [2, 15],
    [3, 30],
    [5, 30],
    [6, 45],
    [8, 45],
    [9, 60],
    [11, 60],
    [12, 75],
    [23, 75],
    [24, 85],
    [35, 85],
    [36, 95],
    [60, 115],
  ])('%s months subscribed gives %s tickets', (months, tickets) => {
    expect(loyaltyTickets(months)).toBe(tickets);
  });

  it('treats a negative duration as just subscribed', () => {
    expect(loyaltyTickets(-3)).toBe(LOYALTY_TIERS[0].tickets);
  });
});

describe('computeTickets', () => {
  it('gives the base to a new account', () => {
    expect(computeTickets(base)).toBe(TICKETS.base);
  });

  it('adds 25 per linked account', () => {
    expect(computeTickets({ ...base, linkedAccounts: 1 })).toBe(125);
    expect(computeTickets({ ...base, linkedAccounts: 3 })).toBe(175);
  });

  it('counts only the highest loyalty tier among subscriptions', () => {
    expect(computeTickets({ ...base, activeSubscriptionMonths: [1, 13, 4] })).toBe(175);
  });

  it('caps live donation tickets at 175', () => {
    const donations = [
      { tickets: 100, receivedAt: daysAgo(1) },
      { tickets: 100, receivedAt: daysAgo(2) },
    ];
    expect(computeTickets({ ...base, donations })).toBe(100 + 175);
  });

  it('ignores expired donations', () => {
    const donations = [
      { tickets: 50, receivedAt: daysAgo(TICKETS.donationExpiryDays + 1) },
      { tickets: 20, receivedAt: daysAgo(TICKETS.donationExpiryDays - 1) },
    ];
    expect(computeTickets({ ...base, donations })).toBe(120);
  });

  it('expires a donation exactly at the expiry boundary', () => {
    expect(isDonationLive({ tickets: 1, receivedAt: daysAgo(TICKETS.donationExpiryDays) }, now)).toBe(false);
    expect(isDonationLive({ tickets: 1, receivedAt: now }, now)).toBe(true);
  });

  it('applies positive and negative adjustments', () => {
    expect(computeTickets({ ...base, adjustments: 40 })).toBe(140);
    expect(computeTickets({ ...base, adjustments: -30 })).toBe(70);
  });

  it('never goes below zero', () => {
    expect(computeTickets({ ...base, adjustments: -1000 })).toBe(0);
  });

  it('never exceeds the total cap', () => {
    const full = {
      ...base,
      linkedAccounts: 3,
      activeSubscriptionMonths: [120],
      donations: [{ tickets: 175, receivedAt: daysAgo(0) }],
      adjustments: 200,
    };
    expect(computeTickets(full)).toBe(TICKETS.totalCap);
  });
});
