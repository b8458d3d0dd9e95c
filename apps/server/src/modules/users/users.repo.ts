/** Queries on members shared by the account, profile and admin modules. */
import { and, eq, isNull, sql } from 'drizzle-orm';
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
