/**
 * Queries on `oauth_states`: one row per sign-in attempt at a provider, stored by the hashes of
 * its `state` and of the browser's binding nonce, with the PKCE verifier the callback needs.
 * Times come from the caller's clock (clock.ts).
 */
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { oauthStates } from '../../db/schema.js';

export type OAuthStateRow = typeof oauthStates.$inferSelect;

export async function insertOAuthState(
  db: Db,
  row: {
    stateHash: string;
    bindingHash: string;
    platform: string;
    action: string;
    codeVerifier: string;
    userId: number | null;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db.insert(oauthStates).values(row);
}

/**
 * Uses the attempt if it is this browser's, for this platform, unused and unexpired at `now`, in
 * one statement: a state replayed (or raced) gets nothing the second time. A state presented by
 * another browser stays unused — it was never that browser's to spend.
 */
export async function consumeOAuthState(
  db: Db,
  key: { stateHash: string; bindingHash: string; platform: string },
  now: Date,
): Promise<OAuthStateRow | null> {
  const [row] = await db
    .update(oauthStates)
    .set({ usedAt: now })
    .where(
      and(
        eq(oauthStates.stateHash, key.stateHash),
        eq(oauthStates.bindingHash, key.bindingHash),
        eq(oauthStates.platform, key.platform),
        isNull(oauthStates.usedAt),
        gt(oauthStates.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

/** Forgets the attempts that expired before `before`. */
export async function deleteOAuthStatesExpiredBefore(db: Db, before: Date): Promise<void> {
  await db.delete(oauthStates).where(lt(oauthStates.expiresAt, before));
}
