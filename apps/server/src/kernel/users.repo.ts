/**
 * Members' rows (the `users` table) as every module reads and changes them (shared kernel: auth,
 * account, admin, social, tickets and raffles each do it inside their own transactions). What only
 * one module does with the table stays in that module's repo (sign-up in auth's `members.repo.ts`,
 * name look-alikes in users' `usernames.repo.ts`).
 */
import type { Platform } from '@telerace/protocol';
import { type AnyColumn, and, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { users } from '../db/schema.js';

export type UserRow = typeof users.$inferSelect;

/** A live (not deleted) member by id. */
export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)));
  return row;
}

/** The users column that holds each platform's id. */
export const PLATFORM_ID_COLUMN = {
  youtube: users.youtubeId,
  twitch: users.twitchId,
  discord: users.discordId,
} as const;

/** The live member holding this identity, if any. */
export async function findUserByIdentity(
  db: Db,
  platform: Platform,
  platformUserId: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(PLATFORM_ID_COLUMN[platform], platformUserId), isNull(users.deletedAt)));
  return row;
}

/**
 * The users row is the one that links the identity in (`platform`, `platformUserId`) columns of
 * another table: a join condition (identities are matched by id, never by name or e-mail).
 */
export function linksIdentity(platform: AnyColumn, platformUserId: AnyColumn): SQL {
  const byPlatform = (Object.keys(PLATFORM_ID_COLUMN) as Platform[]).map((name) =>
    and(eq(platform, name), eq(PLATFORM_ID_COLUMN[name], platformUserId)),
  );
  return or(...byPlatform) as SQL;
}

/** The columns of a member's row the services change. */
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
    | 'isAdmin'
    | 'isBanned'
    | 'lastLoginAt'
  >
>;

export async function updateUser(db: Db, userId: number, changes: UserChanges): Promise<UserRow> {
  const [row] = await db.update(users).set(changes).where(eq(users.id, userId)).returning();
  if (!row) throw new Error(`user ${userId} vanished during an update`);
  return row;
}

/** A live member, locked until the transaction ends (actions that read then write the row). */
export async function lockLiveUser(tx: Db, id: number): Promise<UserRow | undefined> {
  const [row] = await tx
    .select()
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)))
    .for('update');
  return row;
}
