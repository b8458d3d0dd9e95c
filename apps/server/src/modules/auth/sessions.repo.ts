/**
 * Sessions as stored: refresh tokens (hashed), grouped in families (one per login). Revoking a
 * family ends that session; revoking all of a user's families ends every session (logout, bans,
 * deletions, password changes).
 */
import { and, eq, gt, isNull, min, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginHistory, refreshTokens, users } from '../../db/schema.js';

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

/** Stores a token; one already stored under the same hash (a derived successor) is left as it is. */
export async function insertRefreshToken(
  db: Db,
  values: { userId: number; familyId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.insert(refreshTokens).values(values).onConflictDoNothing({ target: refreshTokens.tokenHash });
}

export async function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row;
}

/** Marks a fresh token used; false when it was already used (or revoked) — the check and the write are one statement. */
export async function markRefreshTokenUsed(db: Db, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
    .returning({ id: refreshTokens.id });
  return rows.length === 1;
}

/** True when the (used) token was used less than `seconds` before `now`. */
export async function usedWithin(db: Db, id: number, seconds: number, now: Date): Promise<boolean> {
  const rows = await db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(
      and(
        eq(refreshTokens.id, id),
        isNull(refreshTokens.revokedAt),
        gt(refreshTokens.usedAt, new Date(now.getTime() - seconds * 1000)),
      ),
    );
  return rows.length === 1;
}

/** When the member's session (refresh-token family) began, i.e. when they signed in; undefined if unknown. */
export async function sessionStartedAt(db: Db, userId: number, familyId: string): Promise<Date | undefined> {
  const [row] = await db
    .select({ startedAt: min(refreshTokens.createdAt) })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.familyId, familyId), eq(refreshTokens.userId, userId)));
  return row?.startedAt ?? undefined;
}

/** Ends one session (all tokens of the family) at `now` (the server's clock). */
export async function revokeFamily(db: Db, familyId: string, now: Date): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

/**
 * Ends every session of a user at `now` (the server's clock), or every one but `exceptFamilyId`
 * (the caller's own). Returns the ids of the sessions it ended (their sockets must close).
 */
export async function revokeUserSessions(
  db: Db,
  userId: number,
  now: Date,
  exceptFamilyId?: string,
): Promise<string[]> {
  const rows = await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(
      and(
        eq(refreshTokens.userId, userId),
        isNull(refreshTokens.revokedAt),
        exceptFamilyId ? ne(refreshTokens.familyId, exceptFamilyId) : undefined,
      ),
    )
    .returning({ familyId: refreshTokens.familyId });
  return [...new Set(rows.map((row) => row.familyId))];
}

/** A successful sign-in: its line in the login history and the member's last login. */
export async function recordLogin(tx: Db, userId: number, ip: string, now: Date): Promise<void> {
  await tx.insert(loginHistory).values({ userId, ip, createdAt: now });
  await tx.update(users).set({ lastLoginAt: now }).where(eq(users.id, userId));
}
