/** Queries on `login_codes`: one-time sign-in codes, stored as hashes only. */
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginCodes } from '../../db/schema.js';

export async function insertLoginCode(
  db: Db,
  row: { codeHash: string; bindingHash: string; userId: number; ttlSeconds: number },
): Promise<void> {
  await db.insert(loginCodes).values({
    codeHash: row.codeHash,
    bindingHash: row.bindingHash,
    userId: row.userId,
    expiresAt: sql`now() + make_interval(secs => ${row.ttlSeconds})`,
  });
}

/**
 * Uses the code if it is unused, unexpired and bound to this browser, in one statement: of two
 * exchanges racing with the same code, exactly one gets the member. A code presented by another
 * browser stays unused (it was never that browser's to spend).
 */
export async function consumeLoginCode(
  db: Db,
  codeHash: string,
  bindingHash: string,
): Promise<number | null> {
  const [row] = await db
    .update(loginCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(loginCodes.codeHash, codeHash),
        eq(loginCodes.bindingHash, bindingHash),
        isNull(loginCodes.usedAt),
        gt(loginCodes.expiresAt, sql`now()`),
      ),
    )
    .returning({ userId: loginCodes.userId });
  return row?.userId ?? null;
}

/** Codes are worth nothing a minute after they were issued: forget those an hour past expiry. */
export async function deleteStaleLoginCodes(db: Db): Promise<void> {
  await db.delete(loginCodes).where(lt(loginCodes.expiresAt, sql`now() - interval '1 hour'`));
}
