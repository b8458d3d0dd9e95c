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
    await tx
      .update(passwordResets)
      .set({ consumedAt: sql`now()` })
      .where(and(eq(passwordResets.userId, values.userId), isNull(passwordResets.consumedAt)));
    await tx.insert(passwordResets).values(values);
  });
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
