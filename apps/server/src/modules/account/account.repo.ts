/** Queries of the account module (the member's own row and session). */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { refreshTokens, subscriptions, users } from '../../db/schema.js';
import { hashToken } from '../../tokens.js';
import type { UserRow } from '../users/users.repo.js';

export type UserChanges = Partial<
  Pick<
    typeof users.$inferInsert,
    | 'username'
    | 'usernameSkeleton'
    | 'email'
    | 'passwordHash'
    | 'bio'
    | 'avatarUrl'
    | 'preferredTheme'
    | 'youtubeId'
    | 'twitchId'
    | 'discordId'
    | 'tokensValidAfter'
  >
>;

export async function updateUser(db: Db, userId: number, changes: UserChanges): Promise<UserRow> {
  const [row] = await db.update(users).set(changes).where(eq(users.id, userId)).returning();
  if (!row) throw new Error(`user ${userId} vanished during an update`);
  return row;
}

export async function emailTaken(db: Db, email: string, exceptId: number): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, ne(users.id, exceptId)))
    .limit(1);
  return rows.length > 0;
}

/** The session family of a refresh token presented by its owner, if it is one of theirs. */
export async function refreshFamilyOf(db: Db, userId: number, token: string): Promise<string | undefined> {
  const [row] = await db
    .select({ familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.tokenHash, hashToken(token)), eq(refreshTokens.userId, userId)));
  return row?.familyId;
}

export async function deleteSubscription(db: Db, userId: number, platform: string): Promise<void> {
  await db
    .delete(subscriptions)
    .where(and(eq(subscriptions.userId, userId), eq(subscriptions.platform, platform)));
}

/** PostgreSQL's unique_violation, whether drizzle wrapped the driver error or not. */
export function isUniqueViolation(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
