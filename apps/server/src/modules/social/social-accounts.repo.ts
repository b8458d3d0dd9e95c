/**
 * Queries on members by their social identity: the `youtube_id`, `twitch_id` and `discord_id`
 * columns of `users` (each unique) are the identity keys (platform, platform user id).
 */
import type { Platform } from '@telerace/protocol';
import { and, eq, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';
import { PLATFORM_ID_COLUMN, type UserRow } from '../../kernel/users.repo.js';

const FIELD = { youtube: 'youtubeId', twitch: 'twitchId', discord: 'discordId' } as const;

/**
 * A new member made from a social identity: no e-mail, no password, terms not yet accepted (the
 * web app sends them to complete their registration first). The unique indexes decide against a
 * concurrent sign-up of the same identity or a concurrent taker of the name.
 */
export async function insertSocialUser(
  db: Db,
  values: {
    username: string;
    usernameSkeleton: string;
    platform: Platform;
    platformUserId: string;
    avatarUrl: string | null;
  },
): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({
      username: values.username,
      usernameSkeleton: values.usernameSkeleton,
      avatarUrl: values.avatarUrl,
      [FIELD[values.platform]]: values.platformUserId,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

/**
 * Links the identity to a live member whose slot for that platform is free (or already holds
 * it); undefined when the member is gone or holds another identity of that platform. Another
 * member holding the identity fails on the unique index.
 */
export async function linkIdentity(
  db: Db,
  userId: number,
  platform: Platform,
  platformUserId: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ [FIELD[platform]]: platformUserId })
    .where(
      and(
        eq(users.id, userId),
        isNull(users.deletedAt),
        or(isNull(PLATFORM_ID_COLUMN[platform]), eq(PLATFORM_ID_COLUMN[platform], platformUserId)),
      ),
    )
    .returning();
  return row;
}
