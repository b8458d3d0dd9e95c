/** Password-reset tokens as stored (hashed, single use, the newest one only). */
import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { passwordResets } from '../../db/schema.js';

/** Reset tokens created for the user in the last `minutes` (consumed or not). */
export async function countRecentResets(db: Db, userId: number, minutes: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(passwordResets)
    .where(
      and(
        eq(passwordResets.userId, userId),
        gt(passwordResets.createdAt, sql`now() - make_interval(mins => ${minutes})`),
      ),
    );
  return row?.n ?? 0;
}

/** Stores a new token and invalidates the user's older unconsumed ones, in one transaction. */
export async function replaceResetToken(
  db: Db,
  values: { userId: number; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.transaction(async (tx) => {
    await invalidateResetTokens(tx, values.userId);
    await tx.insert(passwordResets).values(values);
  });
}

/**
 * Invalidates every outstanding token of the user: after a reset, a password change or an e-mail
 * change, a link already mailed (perhaps to an address the member no longer holds) must not work.
 */
export async function invalidateResetTokens(db: Db, userId: number): Promise<void> {
  await db
    .update(passwordResets)
    .set({ consumedAt: sql`now()` })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.consumedAt)));
}

/** Consumes a valid (unconsumed, unexpired) token; its user id, or null. One statement: a token works once. */
export async function consumeResetToken(db: Db, tokenHash: string): Promise<number | null> {
  const [row] = await db
    .update(passwordResets)
    .set({ consumedAt: sql`now()` })
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.consumedAt),
        gt(passwordResets.expiresAt, sql`now()`),
      ),
    )
    .returning({ userId: passwordResets.userId });
  return row?.userId ?? null;
}
