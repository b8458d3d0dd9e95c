/** Queries of the account module: the member's own session, linked platforms and deletion. */
import type { Platform } from '@telerace/protocol';
import { and, eq, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  loginHistory,
  passwordResets,
  refreshTokens,
  subscriptions,
  ticketLedger,
  users,
} from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { hashToken } from '../../tokens.js';

export async function emailTaken(db: Db, email: string, exceptId: number): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, ne(users.id, exceptId)))
    .limit(1);
  return rows.length > 0;
}

/** The field of a member's row holding each platform's linked identity. */
export const PLATFORM_FIELD = {
  youtube: 'youtubeId',
  twitch: 'twitchId',
  discord: 'discordId',
} as const satisfies Record<Platform, keyof UserRow>;

/**
 * Unlinks a platform's identity only while another way to sign in remains (a password or another
 * linked identity), checked by the UPDATE itself: of two parallel unlinks of an account's last two
 * identities, the second re-reads the row the first changed and matches nothing. The row as it
 * is now, or undefined when nothing was unlinked.
 */
export async function unlinkPlatformKeepingSignIn(
  db: Db,
  userId: number,
  platform: Platform,
): Promise<UserRow | undefined> {
  const field = PLATFORM_FIELD[platform];
  const otherIdentities = Object.values(PLATFORM_FIELD)
    .filter((other) => other !== field)
    .map((other) => isNotNull(users[other]));
  const [row] = await db
    .update(users)
    .set({ [field]: null })
    .where(
      and(
        eq(users.id, userId),
        isNotNull(users[field]),
        or(isNotNull(users.passwordHash), ...otherIdentities),
      ),
    )
    .returning();
  return row;
}

/** The session family of a refresh token presented by its owner, if it is one of theirs. */
export async function refreshFamilyOf(db: Db, userId: number, token: string): Promise<string | undefined> {
  const [row] = await db
    .select({ familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.tokenHash, hashToken(token)), eq(refreshTokens.userId, userId)));
  return row?.familyId;
}

/**
 * A deleted member's row: renamed (`username`, with the skeleton of that name so the old one and
 * its look-alikes are free again) and scrubbed of personal data; every row that belonged only to
 * them (tickets, subscriptions, logins, resets, sessions) goes.
 */
export async function scrubDeletedAccount(
  tx: Db,
  userId: number,
  name: { username: string; usernameSkeleton: string },
  now: Date,
): Promise<void> {
  // What the platforms said of the member's identities (donations, subscriptions) goes with them.
  const [linked] = await tx
    .select({ youtube: users.youtubeId, twitch: users.twitchId, discord: users.discordId })
    .from(users)
    .where(eq(users.id, userId));
  for (const [platform, platformUserId] of Object.entries(linked ?? {})) {
    if (platformUserId === null) continue;
    await tx
      .delete(ticketLedger)
      .where(and(eq(ticketLedger.platform, platform), eq(ticketLedger.platformUserId, platformUserId)));
    await tx
      .delete(subscriptions)
      .where(and(eq(subscriptions.platform, platform), eq(subscriptions.platformUserId, platformUserId)));
  }
  await tx
    .update(users)
    .set({
      ...name,
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
      deletedAt: now,
    })
    .where(eq(users.id, userId));
  await tx.delete(ticketLedger).where(eq(ticketLedger.userId, userId));
  await tx.delete(loginHistory).where(eq(loginHistory.userId, userId));
  await tx.delete(passwordResets).where(eq(passwordResets.userId, userId));
  await tx.delete(refreshTokens).where(eq(refreshTokens.userId, userId));
}
