/**
 * The raffles' rows: raffles, their entries (weights frozen at the draw) and the winners' prizes.
 * Times come from the service's clock. A prize's state (pending, claimed, expired, cleared) is
 * read against `now`: nothing has to run when a prize expires.
 */
import { PLATFORMS, type Platform } from '@telerace/protocol';
import { and, asc, count, desc, eq, gt, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { prizes, raffleEntries, raffles, users } from '../../db/schema.js';
import { linksIdentity, PLATFORM_ID_COLUMN } from '../../kernel/users.repo.js';

export type RaffleRow = typeof raffles.$inferSelect;
export type PrizeRow = typeof prizes.$inferSelect;

export interface Identity {
  platform: Platform;
  platformUserId: string;
}

/** An entry and the live account holding its identity, if any. */
export interface EntryRow {
  platform: Platform;
  platformUserId: string;
  displayName: string;
  enteredAt: Date;
  /**
   * Frozen at the draw; null while open, and after the draw for an identity merged into its
   * account's first entry (draw-list.ts).
   */
  weight: number | null;
  account: { userId: number; isBanned: boolean } | null;
}

/** A live account and the identities it links. */
export interface LinkedAccount {
  userId: number;
  isBanned: boolean;
  identities: Identity[];
}

/** The live account linked to this identity (identities are matched by id, never by e-mail). */
export async function accountOf(db: Db, identity: Identity): Promise<LinkedAccount | undefined> {
  const [row] = await db
    .select({
      userId: users.id,
      isBanned: users.isBanned,
      twitch: users.twitchId,
      youtube: users.youtubeId,
      discord: users.discordId,
    })
    .from(users)
    .where(and(eq(PLATFORM_ID_COLUMN[identity.platform], identity.platformUserId), isNull(users.deletedAt)));
  if (!row) return undefined;
  const identities = PLATFORMS.flatMap((platform) => {
    const platformUserId = row[platform];
    return platformUserId ? [{ platform, platformUserId }] : [];
  });
  return { userId: row.userId, isBanned: row.isBanned, identities };
}

/** The open raffle, locked: `update` by the draw and the abort, `share` by entries (which then wait for a draw in progress). */
export async function findOpenRaffle(db: Db, lock?: 'update' | 'share'): Promise<RaffleRow | undefined> {
  const query = db.select().from(raffles).where(eq(raffles.status, 'open'));
  const [row] = await (lock ? query.for(lock) : query);
  return row;
}

export async function findRaffle(db: Db, id: number): Promise<RaffleRow | undefined> {
  const [row] = await db.select().from(raffles).where(eq(raffles.id, id));
  return row;
}

/** The newest raffle: the open one when there is one (a raffle opens only when none is open). */
export async function findLatestRaffle(db: Db): Promise<RaffleRow | undefined> {
  const [row] = await db.select().from(raffles).orderBy(desc(raffles.id)).limit(1);
  return row;
}

/** Throws a unique violation when another raffle is open (`raffles_one_open`). */
export async function insertRaffle(
  db: Db,
  values: { racers: number; seed: string; commitment: string; openedAt: Date },
): Promise<RaffleRow> {
  const [row] = await db
    .insert(raffles)
    .values({ ...values, status: 'open' })
    .returning();
  if (!row) throw new Error('the raffle row was not created');
  return row;
}

export async function entriesOf(db: Db, raffleId: number): Promise<EntryRow[]> {
  const linked = linksIdentity(raffleEntries.platform, raffleEntries.platformUserId);
  const rows = await db
    .select({
      platform: raffleEntries.platform,
      platformUserId: raffleEntries.platformUserId,
      displayName: raffleEntries.displayName,
      enteredAt: raffleEntries.enteredAt,
      weight: raffleEntries.weight,
      userId: users.id,
      isBanned: users.isBanned,
    })
    .from(raffleEntries)
    .leftJoin(users, and(linked, isNull(users.deletedAt)))
    .where(eq(raffleEntries.raffleId, raffleId))
    .orderBy(asc(raffleEntries.enteredAt), asc(raffleEntries.platform), asc(raffleEntries.platformUserId));
  return rows.map(({ userId, isBanned, ...entry }) => ({
    ...entry,
    platform: entry.platform as Platform,
    account: userId === null ? null : { userId, isBanned: isBanned ?? false },
  }));
}

/** Whether any of these identities (an account's) entered this raffle: one look-up of the key each. */
export async function anyHasEntered(
  db: Db,
  raffleId: number,
  identities: readonly Identity[],
): Promise<boolean> {
  if (identities.length === 0) return false;
  const [row] = await db
    .select({ platform: raffleEntries.platform })
    .from(raffleEntries)
    .where(
      and(
        eq(raffleEntries.raffleId, raffleId),
        or(
          ...identities.map((identity) =>
            and(
              eq(raffleEntries.platform, identity.platform),
              eq(raffleEntries.platformUserId, identity.platformUserId),
            ),
          ),
        ),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Adds the entry; false when that identity already entered this raffle. */
export async function insertEntry(
  db: Db,
  raffleId: number,
  entry: Identity & { displayName: string },
  now: Date,
): Promise<boolean> {
  const inserted = await db
    .insert(raffleEntries)
    .values({ raffleId, ...entry, enteredAt: now })
    .onConflictDoNothing()
    .returning({ raffleId: raffleEntries.raffleId });
  return inserted.length > 0;
}

export async function countEntries(db: Db, raffleId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(raffleEntries)
    .where(eq(raffleEntries.raffleId, raffleId));
  return row?.n ?? 0;
}

/** The raffle's entries by platform (platforms without entries absent). */
export async function entriesByPlatform(
  db: Db,
  raffleId: number,
): Promise<Partial<Record<Platform, number>>> {
  const rows = await db
    .select({ platform: raffleEntries.platform, n: count() })
    .from(raffleEntries)
    .where(eq(raffleEntries.raffleId, raffleId))
    .groupBy(raffleEntries.platform);
  return Object.fromEntries(rows.map((row) => [row.platform, row.n]));
}

export async function deleteEntry(db: Db, raffleId: number, identity: Identity): Promise<void> {
  await db
    .delete(raffleEntries)
    .where(
      and(
        eq(raffleEntries.raffleId, raffleId),
        eq(raffleEntries.platform, identity.platform),
        eq(raffleEntries.platformUserId, identity.platformUserId),
      ),
    );
}

/** Freezes every entry's weight in one statement (a chat raffle may have thousands). */
export async function freezeWeights(
  db: Db,
  raffleId: number,
  weights: readonly (Identity & { weight: number })[],
): Promise<void> {
  if (weights.length === 0) return;
  const rows = JSON.stringify(
    weights.map((w) => ({ platform: w.platform, platform_user_id: w.platformUserId, weight: w.weight })),
  );
  await db.execute(sql`
    update ${raffleEntries} set weight = v.weight
    from jsonb_to_recordset(${rows}::jsonb) as v(platform text, platform_user_id text, weight integer)
    where ${raffleEntries.raffleId} = ${raffleId}
      and ${raffleEntries.platform} = v.platform
      and ${raffleEntries.platformUserId} = v.platform_user_id`);
}

export async function closeRaffle(
  db: Db,
  raffleId: number,
  fields: { status: 'drawn' | 'aborted'; closedAt: Date; drawnAt?: Date; entriesHash?: string },
): Promise<void> {
  await db.update(raffles).set(fields).where(eq(raffles.id, raffleId));
}

export async function insertPrizes(
  db: Db,
  rows: readonly (Identity & { raffleId: number; rank: number; displayName: string; expiresAt: Date })[],
): Promise<void> {
  if (rows.length > 0) await db.insert(prizes).values([...rows]);
}

export function prizesOf(db: Db, raffleId: number): Promise<PrizeRow[]> {
  return db.select().from(prizes).where(eq(prizes.raffleId, raffleId)).orderBy(asc(prizes.rank));
}

const pendingAt = (now: Date) =>
  and(isNull(prizes.claimedAt), isNull(prizes.clearedAt), gt(prizes.expiresAt, now));

const ofIdentity = (identity: Identity) =>
  and(eq(prizes.platform, identity.platform), eq(prizes.platformUserId, identity.platformUserId));

/**
 * Clears the expired wins now: prizes never claimed (nor cleared) whose claim time has run out.
 * A win that can still be claimed is never touched. Answers their ids.
 */
export async function clearExpiredPrizes(db: Db, now: Date): Promise<number[]> {
  const rows = await db
    .update(prizes)
    .set({ clearedAt: now })
    .where(and(isNull(prizes.claimedAt), isNull(prizes.clearedAt), lte(prizes.expiresAt, now)))
    .returning({ id: prizes.id });
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/**
 * Claims the identity's pending prize (the one expiring first) for `userId` in ONE conditional
 * update: of claims arriving together, the first to lock the row claims it and every other
 * finds `claimed_at` set when it re-checks the row, so exactly one of them gets it.
 */
export async function claimPendingPrize(
  db: Db,
  identity: Identity,
  userId: number,
  now: Date,
): Promise<{ id: number; raffleId: number } | undefined> {
  const first = db
    .select({ id: prizes.id })
    .from(prizes)
    .where(and(ofIdentity(identity), pendingAt(now)))
    .orderBy(asc(prizes.expiresAt), asc(prizes.id))
    .limit(1);
  const [row] = await db
    .update(prizes)
    .set({ claimedAt: now, claimedByUserId: userId })
    .where(and(eq(prizes.id, sql`(${first})`), ofIdentity(identity), pendingAt(now)))
    .returning({ id: prizes.id, raffleId: prizes.raffleId });
  return row;
}

/** A claimed prize back to pending while it has not expired (nor been cleared); false otherwise. */
export async function releaseClaimedPrize(db: Db, prizeId: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(prizes)
    .set({ claimedAt: null, claimedByUserId: null })
    .where(
      and(
        eq(prizes.id, prizeId),
        isNotNull(prizes.claimedAt),
        isNull(prizes.clearedAt),
        gt(prizes.expiresAt, now),
      ),
    )
    .returning({ id: prizes.id });
  return rows.length > 0;
}

export async function hasPendingPrize(db: Db, identity: Identity, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: prizes.id })
    .from(prizes)
    .where(and(ofIdentity(identity), pendingAt(now)))
    .limit(1);
  return row !== undefined;
}
