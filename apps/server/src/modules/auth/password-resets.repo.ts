/**
 * Password-reset tokens as stored (hashed, single use, the newest one only). Times come from the
 * caller's clock (clock.ts), so a test moves time instead of rewriting rows.
 */
import { and, count, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { passwordResets } from '../../db/schema.js';

/** Reset tokens created for the user since `since` (consumed or not). */
export async function countRecentResets(db: Db, userId: number, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(passwordResets)
    .where(and(eq(passwordResets.userId, userId), gt(passwordResets.createdAt, since)));
  return row?.n ?? 0;
}

/** Stores a new token created at `now` and invalidates the user's older unconsumed ones, in one transaction. */
export async function replaceResetToken(
  db: Db,
  values: { userId: number; tokenHash: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await invalidateResetTokens(tx, values.userId, now);
    await tx.insert(passwordResets).values({ ...values, createdAt: now });
  });
}

/**
 * Invalidates every outstanding token of the user: after a reset, a password change or an e-mail
 * change, a link already mailed (perhaps to an address the member no longer holds) must not work.
 */
export async function invalidateResetTokens(db: Db, userId: number, now: Date): Promise<void> {
  await db
    .update(passwordResets)
    .set({ consumedAt: now })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.consumedAt)));
}

/** Consumes a token valid at `now` (unconsumed, unexpired); its user id, or null. One statement: a token works once. */
export async function consumeResetToken(db: Db, tokenHash: string, now: Date): Promise<number | null> {
  const [row] = await db
    .update(passwordResets)
    .set({ consumedAt: now })
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.consumedAt),
        gt(passwordResets.expiresAt, now),
      ),
    )
    .returning({ userId: passwordResets.userId });
  return row?.userId ?? null;
}
