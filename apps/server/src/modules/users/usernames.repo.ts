/** The queries behind member names: look-alike clashes and the skeleton column's back-fill. */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';

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
