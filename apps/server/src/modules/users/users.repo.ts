/** Queries on members shared by the auth, account, profile and admin modules. */
import type { Platform } from '@telerace/protocol';
import { type AnyColumn, and, eq, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';

export type UserRow = typeof users.$inferSelect;

/** A live (not deleted) member by id. */
export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)));
  return row;
}

/** A live member by e-mail, case-insensitively. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt)));
  return row;
}

/** Linked social accounts of a member (each adds tickets). */
export function linkedAccountCount(row: Pick<UserRow, 'youtubeId' | 'twitchId' | 'discordId'>): number {
  return [row.youtubeId, row.twitchId, row.discordId].filter((id) => id !== null).length;
}

/** The users column that holds each platform's id. */
export const PLATFORM_ID_COLUMN = {
  youtube: users.youtubeId,
  twitch: users.twitchId,
  discord: users.discordId,
} as const;

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

/** PostgreSQL's unique_violation, whether drizzle wraps the driver's error or not. */
export function isUniqueViolation(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export type NewUser = Pick<
  typeof users.$inferInsert,
  'email' | 'username' | 'usernameSkeleton' | 'passwordHash' | 'isAdmin' | 'termsAcceptedAt'
>;

export async function insertUser(db: Db, values: NewUser): Promise<UserRow> {
  const [row] = await db.insert(users).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
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

/** Sets a live member's password; undefined when there is no live member with that id. */
export async function setLivePassword(
  tx: Db,
  id: number,
  changes: { passwordHash: string; tokensValidAfter: Date },
): Promise<UserRow | undefined> {
  const [row] = await tx
    .update(users)
    .set(changes)
    .where(and(eq(users.id, id), isNull(users.deletedAt)))
    .returning();
  return row;
}

/** Records the terms' acceptance once (the first time stays). */
export async function acceptTerms(db: Db, id: number, now: Date): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ termsAcceptedAt: sql`coalesce(${users.termsAcceptedAt}, ${now})` })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** Whether an e-mail, a name or a look-alike of it is already used (sign-up). */
export async function signupClash(
  db: Db,
  values: { email: string; username: string; usernameSkeleton: string },
): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(
      sql`lower(${users.email}) = lower(${values.email}) or lower(${users.username}) = lower(${values.username}) or ${users.usernameSkeleton} = ${values.usernameSkeleton}`,
    )
    .limit(1);
  return rows.length > 0;
}

/**
 * Whether a name, or one with the same look-alike form, is already used (deleted members included:
 * they keep their name). Rows from before the skeleton column (null) still count case-insensitively.
 */
export async function usernameClash(
  db: Db,
  username: string,
  skeleton: string,
  exceptUserId?: number,
): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        sql`(lower(${users.username}) = lower(${username}) or ${users.usernameSkeleton} = ${skeleton})`,
        exceptUserId === undefined ? undefined : ne(users.id, exceptUserId),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** Rows written before `username_skeleton` existed. */
export function usersWithoutSkeleton(db: Db): Promise<{ id: number; username: string }[]> {
  return db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(isNull(users.usernameSkeleton))
    .orderBy(users.id);
}

export async function setUsernameSkeleton(db: Db, id: number, skeleton: string): Promise<void> {
  await db.update(users).set({ usernameSkeleton: skeleton }).where(eq(users.id, id));
}

/** Whether a live admin exists other than `exceptId`. */
export async function liveAdminExists(db: Db, exceptId: number | undefined): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.isAdmin, true),
        isNull(users.deletedAt),
        exceptId === undefined ? undefined : ne(users.id, exceptId),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
