/** Queries behind the ticket count: one aggregate query per source, for any number of members. */
import type { Platform } from '@telerace/protocol';
import { and, eq, gt, inArray, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { subscriptions, ticketLedger, users, webhookDeliveries } from '../../db/schema.js';
import { linksIdentity } from '../../kernel/users.repo.js';

export type LedgerKind = 'donation' | 'adjustment';

export interface LedgerSums {
  userId: number;
  /** Donation tickets received in (donationsSince, now]. */
  liveDonations: number;
  /** Sum of admin adjustments, all time (may be negative). */
  adjustments: number;
}

/**
 * Per member: live donation tickets and the sum of adjustments. A row counts for a member when it
 * names them (adjustments) or an identity they link now (donations, whenever they were given).
 * Members without rows are absent.
 */
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
      userId: users.id,
      liveDonations: sql<number>`coalesce(sum(${ticketLedger.amount}) filter (where ${isLiveDonation}), 0)::int`,
      adjustments: sql<number>`coalesce(sum(${ticketLedger.amount}) filter (where ${ticketLedger.kind} = 'adjustment'), 0)::int`,
    })
    .from(users)
    .innerJoin(
      ticketLedger,
      or(
        eq(ticketLedger.userId, users.id),
        linksIdentity(ticketLedger.platform, ticketLedger.platformUserId),
      ),
    )
    .where(inArray(users.id, [...userIds]))
    .groupBy(users.id);
}

/** Start dates of the active subscriptions of the identities the members link (one row each). */
export function activeSubscriptions(
  db: Db,
  userIds: readonly number[],
): Promise<{ userId: number; subscribedSince: Date }[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .select({ userId: users.id, subscribedSince: subscriptions.subscribedSince })
    .from(users)
    .innerJoin(subscriptions, linksIdentity(subscriptions.platform, subscriptions.platformUserId))
    .where(and(inArray(users.id, [...userIds]), eq(subscriptions.active, true)));
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

/** Who a ledger row belongs to: a member (adjustments) or a platform identity (donations). */
export type LedgerOwner = { userId: number } | { platform: Platform; platformUserId: string };

/** Inserts a ledger row unless one with the same source_id exists; true when it was added. */
export async function insertLedgerEntry(
  db: Db,
  entry: LedgerOwner & { kind: LedgerKind; amount: number; sourceId: string },
): Promise<boolean> {
  const inserted = await db
    .insert(ticketLedger)
    .values(entry)
    .onConflictDoNothing({ target: ticketLedger.sourceId })
    .returning({ id: ticketLedger.id });
  return inserted.length > 0;
}

/**
 * A platform identity's subscription is active since `subscribedSince` (a new subscription, or a
 * renewal whose cumulative months set the start back). An active subscription keeps the earlier
 * start; one that had ended starts again.
 */
export async function upsertActiveSubscription(
  db: Db,
  identity: { platform: Platform; platformUserId: string },
  subscribedSince: Date,
  now: Date,
): Promise<void> {
  await db
    .insert(subscriptions)
    .values({ ...identity, subscribedSince, active: true, updatedAt: now })
    .onConflictDoUpdate({
      target: [subscriptions.platform, subscriptions.platformUserId],
      set: {
        subscribedSince: sql`case when ${subscriptions.active} then least(${subscriptions.subscribedSince}, excluded.subscribed_since) else excluded.subscribed_since end`,
        active: true,
        updatedAt: now,
      },
    });
}

/** The identity's subscription ended; true when there was an active one. */
export async function endSubscription(
  db: Db,
  identity: { platform: Platform; platformUserId: string },
  now: Date,
): Promise<boolean> {
  const ended = await db
    .update(subscriptions)
    .set({ active: false, updatedAt: now })
    .where(
      and(
        eq(subscriptions.platform, identity.platform),
        eq(subscriptions.platformUserId, identity.platformUserId),
        eq(subscriptions.active, true),
      ),
    )
    .returning({ id: subscriptions.id });
  return ended.length > 0;
}

/**
 * Notes a webhook delivery as handled; false when it already was (a retry or a replay). Written in
 * the transaction of what the delivery changes: a concurrent copy of the delivery waits for that
 * transaction, then finds the row (committed) or writes it itself (rolled back).
 */
export async function firstDelivery(
  db: Db,
  delivery: { source: string; deliveryId: string },
  receivedAt: Date,
): Promise<boolean> {
  const inserted = await db
    .insert(webhookDeliveries)
    .values({ ...delivery, receivedAt })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.deliveryId });
  return inserted.length > 0;
}

/** Drops the deliveries noted before `before` (platforms refuse to deliver anything that old). */
export async function forgetDeliveries(db: Db, before: Date): Promise<void> {
  await db.delete(webhookDeliveries).where(lte(webhookDeliveries.receivedAt, before));
}
