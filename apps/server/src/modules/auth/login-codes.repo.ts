/**
 * Queries on `login_codes`: one-time sign-in codes, stored as hashes only. Times come from the
 * caller's clock (clock.ts).
 */
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginCodes } from '../../db/schema.js';

export async function insertLoginCode(
  db: Db,
  row: { codeHash: string; bindingHash: string; userId: number; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.insert(loginCodes).values(row);
}

/**
 * Uses the code if it is unused, unexpired at `now` and bound to this browser, in one statement:
 * of two exchanges racing with the same code, exactly one gets the member. A code presented by
 * another browser stays unused (it was never that browser's to spend).
 */
export async function consumeLoginCode(
  db: Db,
  codeHash: string,
  bindingHash: string,
  now: Date,
): Promise<number | null> {
  const [row] = await db
    .update(loginCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(loginCodes.codeHash, codeHash),
        eq(loginCodes.bindingHash, bindingHash),
        isNull(loginCodes.usedAt),
        gt(loginCodes.expiresAt, now),
      ),
    )
    .returning({ userId: loginCodes.userId });
  return row?.userId ?? null;
}

/** Forgets the codes that expired before `before`. */
export async function deleteLoginCodesExpiredBefore(db: Db, before: Date): Promise<void> {
  await db.delete(loginCodes).where(lt(loginCodes.expiresAt, before));
}
