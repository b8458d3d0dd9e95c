/** Ending sessions: revoking refresh-token families (used by logout, bans, deletions, password changes). */
import { and, eq, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { refreshTokens } from '../../db/schema.js';

/** Ends every session of a user, or every one but `exceptFamilyId` (the caller's own). */
export async function revokeUserSessions(db: Db, userId: number, exceptFamilyId?: string): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(refreshTokens.userId, userId),
        isNull(refreshTokens.revokedAt),
        exceptFamilyId ? ne(refreshTokens.familyId, exceptFamilyId) : undefined,
      ),
    );
}
