/** Queries behind the ticket count: one aggregate query per source, for any number of members. */
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { subscriptions, ticketLedger, users } from '../../db/schema.js';

export type LedgerKind = 'donation' | 'adjustment';

export interface LedgerSums {
  userId: number;
  /** Donation tickets received in (donationsSince, now]. */
  liveDonations: number;
  /** Sum of admin adjustments, all time (may be negative). */
  adjustments: number;
}

/** Per member: live donation tickets and the sum of adjustments. Members without rows are absent. */
export async function ledgerSums(
  db: Db,
  userIds: readonly number[],
  donationsSince: Date,
  now: Date,
): Promise<LedgerSums[]> {
  if (userIds.length === 0) return [];
  const isLiveDonation = and(
    eq(ticketLedger.kind, 'donation'),
    gt(ticketLedger.createdAt, donationsSince),
    // `now` has the app's millisecond precision, `created_at` PostgreSQL's microseconds: a donation
    // recorded in the same millisecond as `now` would otherwise seem to come after it.
    lte(sql`date_trunc('milliseconds', ${ticketLedger.createdAt})`, now),
  );
  return db
    .select({
      userId: ticketLedger.userId,
      liveDonations: sql<number>`coalesce(sum(${ticketLedger.amount}) filter (where ${isLiveDonation}), 0)::int`,
      adjustments: sql<number>`coalesce(sum(${ticketLedger.amount}) filter (where ${ticketLedger.kind} = 'adjustment'), 0)::int`,
    })
    .from(ticketLedger)
    .where(inArray(ticketLedger.userId, [...userIds]))
    .groupBy(ticketLedger.userId);
}

/** Start dates of the members' active subscriptions (one row per subscription). */
export function activeSubscriptions(
  db: Db,
  userIds: readonly number[],
): Promise<{ userId: number; subscribedSince: Date }[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .select({ userId: subscriptions.userId, subscribedSince: subscriptions.subscribedSince })
    .from(subscriptions)
    .where(and(inArray(subscriptions.userId, [...userIds]), eq(subscriptions.active, true)));
}

/** The linked social ids of the members (each linked account adds tickets). */
export function linkedIds(
  db: Db,
  userIds: readonly number[],
): Promise<{ id: number; youtubeId: string | null; twitchId: string | null; discordId: string | null }[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .select({
      id: users.id,
      youtubeId: users.youtubeId,
      twitchId: users.twitchId,
      discordId: users.discordId,
    })
    .from(users)
    .where(inArray(users.id, [...userIds]));
}

/** Inserts a ledger row unless one with the same source_id exists; true when it was added. */
export async function insertLedgerEntry(
  db: Db,
  entry: { userId: number; kind: LedgerKind; amount: number; sourceId: string },
): Promise<boolean> {
  const inserted = await db
    .insert(ticketLedger)
    .values(entry)
    .onConflictDoNothing({ target: ticketLedger.sourceId })
    .returning({ id: ticketLedger.id });
  return inserted.length > 0;
}
