/**
 * Account deletion (DELETE /me and the admin's DELETE /admin/users/:id). The row stays, scrubbed of
 * personal data and renamed `Deleted driver#<id>`, so race results keep an anonymous name; every
 * row that belongs only to the member (tickets, subscriptions, logins, resets, sessions) is
 * deleted. All of it happens in one transaction; sessions are told to end once it is committed.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  loginHistory,
  passwordResets,
  refreshTokens,
  subscriptions,
  ticketLedger,
  users,
} from '../../db/schema.js';
import type { EventBus } from '../../events.js';
import { usernameSkeleton } from '../users/usernames.js';
import type { UserRow } from '../users/users.repo.js';

/** The name a deleted member keeps (the web app shows the part before `#`: "Deleted driver"). */
export const deletedUsername = (id: number): string => `Deleted driver#${id}`;

export interface DeleteAccountOptions {
  /** Runs inside the deletion's transaction with the row as it was (the admin's audit record). */
  inTransaction?: (tx: Db, before: UserRow) => Promise<void>;
}

/** Deletes a live member; false when there is no live member with that id. */
export async function deleteAccount(
  db: Db,
  events: EventBus,
  userId: number,
  options: DeleteAccountOptions = {},
): Promise<boolean> {
  const deleted = await db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.deletedAt)))
      .for('update');
    if (!before) return false;
    await tx
      .update(users)
      .set({
        username: deletedUsername(userId),
        // The old name (and its look-alikes) becomes free again.
        usernameSkeleton: usernameSkeleton(deletedUsername(userId)),
        email: null,
        passwordHash: null,
        bio: '',
        avatarUrl: null,
        preferredTheme: 'dark',
        youtubeId: null,
        twitchId: null,
        discordId: null,
        isAdmin: false,
        termsAcceptedAt: null,
        lastLoginAt: null,
        deletedAt: new Date(),
      })
      .where(eq(users.id, userId));
    await tx.delete(ticketLedger).where(eq(ticketLedger.userId, userId));
    await tx.delete(subscriptions).where(eq(subscriptions.userId, userId));
    await tx.delete(loginHistory).where(eq(loginHistory.userId, userId));
    await tx.delete(passwordResets).where(eq(passwordResets.userId, userId));
    await tx.delete(refreshTokens).where(eq(refreshTokens.userId, userId));
    await options.inTransaction?.(tx, before);
    return true;
  });
  if (deleted) {
    events.emit('user.changed', { userId, username: deletedUsername(userId) });
    events.emit('user.sessions-revoked', { userId, reason: 'account_deleted' });
  }
  return deleted;
}
