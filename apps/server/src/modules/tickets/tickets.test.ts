import { type Platform, TICKETS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import { subscriptions, ticketLedger, users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildUser, type UserOverrides } from '../../test/factories.js';
import { type TicketsService, ticketsForUsers, wholeMonthsBetween } from './tickets.service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (days: number, now = new Date()) => new Date(now.getTime() - days * DAY_MS);
/** `months` whole months ago, plus a day so the month boundary is safely passed. */
function monthsAgo(months: number): Date {
  const date = new Date();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() - months);
  return new Date(date.getTime() - DAY_MS);
}

let sourceSeq = 0;
const nextSource = () => `test:${++sourceSeq}:${Math.random()}`;

describe('tickets', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  let db: Db;
  let tickets: TicketsService;
  beforeAll(async () => {
    testApp = await startTestApp();
    db = testApp.app.database.db;
    tickets = testApp.app.tickets;
  });
  afterAll(() => testApp.close());

  async function ticketsOf(overrides: UserOverrides, setup?: (userId: number) => Promise<unknown>) {
    const user = await buildUser(db, { password: null, ...overrides });
    await setup?.(user.id);
    const response = await testApp.app.inject({
      url: '/api/me/tickets',
      headers: await authHeader(testApp.app, user),
    });
    expect(response.statusCode).toBe(200);
    return response.json() as { tickets: number; breakdown: Record<string, number> };
  }

  const donation = (userId: number, amount: number, createdAt = new Date()) =>
    db.insert(ticketLedger).values({ userId, kind: 'donation', amount, sourceId: nextSource(), createdAt });
  const adjustment = (userId: number, amount: number) =>
    db.insert(ticketLedger).values({ userId, kind: 'adjustment', amount, sourceId: nextSource() });
  /** A subscription of an identity the member links (linking it adds its 25 tickets). */
  const subscription = async (userId: number, platform: Platform, since: Date, active = true) => {
    const platformUserId = `${platform}-${nextSource()}`;
    await db
      .update(users)
      .set({ [`${platform}Id`]: platformUserId })
      .where(eq(users.id, userId));
    await db.insert(subscriptions).values({ platform, platformUserId, subscribedSince: since, active });
  };

  it('refuses anonymous callers', async () => {
    expect((await testApp.app.inject('/api/me/tickets')).statusCode).toBe(401);
  });

  it('gives a new account the base', async () => {
    expect(await ticketsOf({})).toEqual({
      tickets: 100,
      breakdown: { base: 100, linkedAccounts: 0, loyalty: 0, donations: 0, adjustments: 0 },
    });
  });

  it('adds 25 per linked account', async () => {
    const id = Math.random().toString(36).slice(2);
    expect((await ticketsOf({ twitchId: `t${id}` })).tickets).toBe(125);
    const all = await ticketsOf({ twitchId: `t2${id}`, youtubeId: `y${id}`, discordId: `d${id}` });
    expect(all.tickets).toBe(175);
    expect(all.breakdown.linkedAccounts).toBe(75);
  });

  it.each([
    [0, 5],
    [1, 15],
    [3, 30],
    [6, 45],
    [9, 60],
    [12, 75],
    [24, 85],
  ])('gives loyalty tickets to an active subscriber of %s months', async (months, loyalty) => {
    const result = await ticketsOf({}, (userId) =>
      subscription(userId, 'twitch', months === 0 ? new Date() : monthsAgo(months)),
    );
    expect(result.breakdown.loyalty).toBe(loyalty);
    expect(result.tickets).toBe(125 + loyalty);
  });

  it('ignores inactive subscriptions and counts only the highest tier', async () => {
    const result = await ticketsOf({}, async (userId) => {
      await subscription(userId, 'twitch', monthsAgo(1));
      await subscription(userId, 'youtube', monthsAgo(6));
      await subscription(userId, 'discord', monthsAgo(24), false);
    });
    expect(result.breakdown.loyalty).toBe(45);
    expect(result.tickets).toBe(100 + 75 + 45);
  });

  it('counts live donations up to the cap and drops expired ones', async () => {
    const capped = await ticketsOf({}, async (userId) => {
      await donation(userId, 100);
      await donation(userId, 100, daysAgo(10));
    });
    expect(capped.breakdown.donations).toBe(TICKETS.donationCap);
    expect(capped.tickets).toBe(100 + 175);

    const expiring = await ticketsOf({}, async (userId) => {
      await donation(userId, 50, daysAgo(TICKETS.donationExpiryDays + 1));
      await donation(userId, 20, daysAgo(TICKETS.donationExpiryDays - 1));
    });
    expect(expiring.breakdown.donations).toBe(20);
    expect(expiring.tickets).toBe(120);
  });

  it('expires a donation exactly at the expiry boundary (ticketsForUsers with a fixed now)', async () => {
    const user = await buildUser(db, { password: null });
    const now = new Date('2026-06-01T12:00:00Z');
    await donation(user.id, 30, daysAgo(TICKETS.donationExpiryDays, now));
    await donation(user.id, 7, now);
    expect((await ticketsForUsers(db, [user.id], now)).get(user.id)?.breakdown.donations).toBe(7);
    // A day earlier, the donation dated `now` is not counted yet and the older one is still live.
    expect((await ticketsForUsers(db, [user.id], daysAgo(1, now))).get(user.id)?.breakdown.donations).toBe(
      30,
    );
  });

  it('applies negative adjustments and clamps the total at 0 and 500', async () => {
    const lower = await ticketsOf({}, (userId) => adjustment(userId, -30));
    expect(lower.tickets).toBe(70);
    expect(lower.breakdown.adjustments).toBe(-30);

    const zero = await ticketsOf({}, (userId) => adjustment(userId, -1000));
    expect(zero.tickets).toBe(0);
    expect(zero.breakdown).toMatchObject({ base: 100, adjustments: -1000 });

    const capped = await ticketsOf({}, async (userId) => {
      await adjustment(userId, 300);
      await adjustment(userId, 300);
    });
    expect(capped.tickets).toBe(TICKETS.totalCap);
    expect(capped.breakdown.adjustments).toBe(600);
  });

  it('computes many members at once, equal to one by one', async () => {
    const a = await buildUser(db, { password: null });
    const b = await buildUser(db, { password: null });
    await donation(b.id, 12);
    await subscription(a.id, 'twitch', monthsAgo(3));
    const both = await tickets.forUsers([a.id, b.id]);
    expect(both.get(a.id)).toEqual(await tickets.forUser(a.id));
    expect(both.get(a.id)?.tickets).toBe(155);
    expect(both.get(b.id)?.tickets).toBe(112);
    expect((await tickets.forUsers([])).size).toBe(0);
  });

  it('adds a ledger entry once per source id', async () => {
    const user = await buildUser(db, { password: null });
    const entry = { userId: user.id, kind: 'donation' as const, amount: 5, sourceId: nextSource() };
    expect(await tickets.add(entry)).toBe(true);
    expect(await tickets.add(entry)).toBe(false);
    expect((await tickets.forUser(user.id))?.tickets).toBe(105);
  });

  it('counts an identity’s donations and subscription for the account that links it, once it links', async () => {
    const identity = { platform: 'twitch' as const, platformUserId: `viewer-${nextSource()}` };
    const source = nextSource();
    expect(await tickets.apply(identity, { kind: 'donation', tickets: 12, sourceId: source })).toBe(
      'applied',
    );
    expect(await tickets.apply(identity, { kind: 'donation', tickets: 12, sourceId: source })).toBe(
      'unchanged',
    );
    await tickets.apply(identity, { kind: 'subscribed', months: 3 });
    const user = await buildUser(db, { password: null });
    expect((await tickets.forUser(user.id))?.tickets).toBe(100);

    await db.update(users).set({ twitchId: identity.platformUserId }).where(eq(users.id, user.id));
    expect((await tickets.forUser(user.id))?.breakdown).toEqual({
      base: 100,
      linkedAccounts: 25,
      loyalty: 30,
      donations: 12,
      adjustments: 0,
    });

    // A renewal reporting fewer months keeps the earlier start; the end removes the loyalty.
    await tickets.apply(identity, { kind: 'subscribed', months: 1 });
    expect((await tickets.forUser(user.id))?.breakdown.loyalty).toBe(30);
    expect(await tickets.apply(identity, { kind: 'unsubscribed' })).toBe('applied');
    expect(await tickets.apply(identity, { kind: 'unsubscribed' })).toBe('unchanged');
    expect((await tickets.forUser(user.id))?.breakdown.loyalty).toBe(0);
    // Subscribing again starts again.
    await tickets.apply(identity, { kind: 'subscribed', months: 0 });
    expect((await tickets.forUser(user.id))?.breakdown.loyalty).toBe(5);

    await db.update(users).set({ twitchId: null }).where(eq(users.id, user.id));
    expect((await tickets.forUser(user.id))?.tickets).toBe(100);
  });

  it('applies a webhook delivery once, told apart by its source and id', async () => {
    const identity = { platform: 'youtube' as const, platformUserId: `viewer-${nextSource()}` };
    const delivery = { source: 'test', deliveryId: nextSource() };
    const subscribe = { kind: 'subscribed' as const, months: 0 };
    expect(await tickets.apply(identity, subscribe, delivery)).toBe('applied');
    expect(await tickets.apply(identity, { kind: 'unsubscribed' }, delivery)).toBe('duplicate');
    expect(await tickets.apply(identity, subscribe, { ...delivery, source: 'other' })).toBe('applied');
  });

  it('counts a donation recorded in the same millisecond as the moment asked about', async () => {
    const user = await buildUser(db, { password: null });
    await tickets.add({ userId: user.id, kind: 'donation', amount: 7, sourceId: nextSource() });
    // The database keeps microseconds; the app's clock (and this Date) has milliseconds.
    const [row] = await db
      .select({ createdAt: ticketLedger.createdAt })
      .from(ticketLedger)
      .where(eq(ticketLedger.userId, user.id));
    if (!row) throw new Error('no ledger row');
    expect((await ticketsForUsers(db, [user.id], row.createdAt)).get(user.id)?.tickets).toBe(107);
  });
});

describe('wholeMonthsBetween', () => {
  it.each([
    ['2026-01-15T10:00:00Z', '2026-01-20T00:00:00Z', 0],
    ['2026-01-15T10:00:00Z', '2026-02-15T09:59:59Z', 0],
    ['2026-01-15T10:00:00Z', '2026-02-15T10:00:00Z', 1],
    ['2025-03-31T00:00:00Z', '2026-03-31T00:00:00Z', 12],
    ['2026-05-01T00:00:00Z', '2026-04-01T00:00:00Z', 0],
  ])('from %s to %s is %s', (since, now, months) => {
    expect(wholeMonthsBetween(new Date(since), new Date(now))).toBe(months);
  });
});
