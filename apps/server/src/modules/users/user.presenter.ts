/** How a member is shown by the API (the `User` schema of packages/protocol). */
import type { User } from '@telerace/protocol';
import type { UserRow } from '../../kernel/users.repo.js';

export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    bio: row.bio,
    avatar_url: row.avatarUrl,
    preferred_theme: row.preferredTheme === 'light' ? 'light' : 'dark',
    youtube_id: row.youtubeId,
    twitch_id: row.twitchId,
    discord_id: row.discordId,
    has_password: row.passwordHash !== null,
    is_admin: row.isAdmin,
    is_banned: row.isBanned,
    registration_complete: row.termsAcceptedAt !== null,
    last_login_at: row.lastLoginAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
