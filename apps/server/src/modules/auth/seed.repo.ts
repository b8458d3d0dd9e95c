/** Queries of start-up seeding: the ids of the seeded accounts, kept in `app_settings`, and whether an admin exists. */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appSettings, users } from '../../db/schema.js';

/** The id of the account seeded under `key`, if one was remembered. */
export async function seededAccountId(db: Db, key: string): Promise<number | undefined> {
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, key));
  return typeof row?.value === 'number' ? row.value : undefined;
}

export async function rememberSeededAccount(db: Db, key: string, userId: number): Promise<void> {
  await db
    .insert(appSettings)
    .values({ key, value: userId })
    .onConflictDoUpdate({ target: appSettings.key, set: { value: userId, updatedAt: sql`now()` } });
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
