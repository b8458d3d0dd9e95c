/** The member's own account: details, profile, theme, password and linked accounts. */
import {
  ERROR_KEYS,
  type Platform,
  type Theme,
  type UpdateDetailsRequest,
  type UpdateProfileRequest,
} from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import { HttpError } from '../../http/errors.js';
import { invalidateResetTokens } from '../auth/password-resets.repo.js';
import { assertAcceptablePassword, hashPassword, verifyPassword } from '../auth/passwords.js';
import { revokeUserSessions } from '../auth/sessions.repo.js';
import { acceptableUsername, isUsernameTaken } from '../users/usernames.js';
import type { UserRow } from '../users/users.repo.js';
import {
  deleteSubscription,
  emailTaken,
  isUniqueViolation,
  type UserChanges,
  updateUser,
} from './account.repo.js';

const inUseError = (): HttpError =>
  new HttpError(409, 'Email or username already in use', ERROR_KEYS.emailOrUsernameInUse);
const wrongPasswordError = (): HttpError =>
  new HttpError(400, 'Current password is incorrect', ERROR_KEYS.wrongCurrentPassword);

/** The part of a username before its last `#` (what the member typed and the web app shows). */
export function usernameBase(username: string): string {
  const hash = username.lastIndexOf('#');
  return hash === -1 ? username : username.slice(0, hash);
}

async function assertCurrentPassword(user: UserRow, currentPassword: string | undefined): Promise<void> {
  if (user.passwordHash === null) {
    throw new HttpError(
      400,
      'Your account has no password yet. Set a password first, then change your details.',
      ERROR_KEYS.wrongCurrentPassword,
    );
  }
  if (currentPassword === undefined) {
    throw new HttpError(400, 'Current password is required', ERROR_KEYS.wrongCurrentPassword);
  }
  if (!(await verifyPassword(user.passwordHash, currentPassword))) throw wrongPasswordError();
}

/** Updates the row, turning a unique-index race into the same 409 as the checks before it. */
async function saveUnique(db: Db, userId: number, changes: UserChanges): Promise<UserRow> {
  try {
    return await updateUser(db, userId, changes);
  } catch (error) {
    if (isUniqueViolation(error)) throw inUseError();
    throw error;
  }
}

/**
 * Username and e-mail. A username equal to the current base keeps the current name (suffix
 * included); any other is taken exactly as typed. The e-mail changes only when given and different.
 */
export async function updateDetails(db: Db, user: UserRow, request: UpdateDetailsRequest): Promise<UserRow> {
  await assertCurrentPassword(user, request.currentPassword);
  const changes: UserChanges = {};
  if (request.username !== usernameBase(user.username)) {
    // Admins may carry a reserved name ("Support"); nobody an invisible character or a look-alike.
    const chosen = acceptableUsername(request.username, { allowReserved: user.isAdmin });
    if (chosen.username !== usernameBase(user.username)) {
      if (await isUsernameTaken(db, chosen.username, user.id)) throw inUseError();
      changes.username = chosen.username;
      changes.usernameSkeleton = chosen.usernameSkeleton;
    }
  }
  const email = request.email ?? null;
  if (email !== null && email !== user.email?.toLowerCase()) {
    if (await emailTaken(db, email, user.id)) throw inUseError();
    changes.email = email;
  }
  if (Object.keys(changes).length === 0) return user;
  const saved = await saveUnique(db, user.id, changes);
  // A reset link mailed to the old address must not outlive the address.
  if (changes.email !== undefined) await invalidateResetTokens(db, user.id);
  return saved;
}

export function updateProfile(db: Db, userId: number, request: UpdateProfileRequest): Promise<UserRow> {
  return updateUser(db, userId, { bio: request.bio, avatarUrl: request.avatar_url || null });
}

export function updateTheme(db: Db, userId: number, theme: Theme): Promise<UserRow> {
  return updateUser(db, userId, { preferredTheme: theme });
}

/**
 * Sets (social-only account) or changes the password, then ends every other session: every
 * refresh family but `keepFamilyId` (the caller's, when known) is revoked, every access token
 * issued so far is refused (`tokens_valid_after`; the caller's page refreshes with its kept cookie
 * and goes on), outstanding reset links die, and the sockets of the ended sessions are told to
 * close. With the caller's session known, only the other sessions' sockets close (a
 * `user.sessions-revoked` would also throw the caller's own page out, right after its change).
 */
export async function changePassword(
  db: Db,
  events: EventBus,
  user: UserRow,
  request: { currentPassword?: string | undefined; newPassword: string },
  keepFamilyId: string | undefined,
): Promise<UserRow> {
  if (user.passwordHash !== null) await assertCurrentPassword(user, request.currentPassword);
  assertAcceptablePassword(request.newPassword);
  const passwordHash = await hashPassword(request.newPassword);
  const { row, ended } = await db.transaction(async (tx) => {
    // The server's clock, as the tokens' `iat` is.
    const updated = await updateUser(tx, user.id, { passwordHash, tokensValidAfter: new Date() });
    await invalidateResetTokens(tx, user.id);
    return { row: updated, ended: await revokeUserSessions(tx, user.id, keepFamilyId) };
  });
  events.emit('user.changed', { userId: row.id, username: row.username });
  if (keepFamilyId === undefined) {
    events.emit('user.sessions-revoked', { userId: user.id, reason: 'password_changed' });
  } else {
    for (const sessionId of ended) events.emit('session.revoked', { userId: user.id, sessionId });
  }
  return row;
}

const PLATFORM_COLUMN = { youtube: 'youtubeId', twitch: 'twitchId', discord: 'discordId' } as const;

/**
 * Unlinks a social account, refusing to leave the member without any way to sign in. Loyalty from
 * that platform's subscription goes with it: it can no longer be tied to this member.
 */
export async function disconnectPlatform(db: Db, user: UserRow, platform: Platform): Promise<UserRow> {
  const column = PLATFORM_COLUMN[platform];
  if (user[column] === null) return user;
  const othersLinked = Object.values(PLATFORM_COLUMN).some((c) => c !== column && user[c] !== null);
  if (user.passwordHash === null && !othersLinked) {
    throw new HttpError(
      409,
      'Set a password before disconnecting your last linked account.',
      ERROR_KEYS.lastSignInMethod,
    );
  }
  return db.transaction(async (tx) => {
    await deleteSubscription(tx, user.id, platform);
    return updateUser(tx, user.id, { [column]: null });
  });
}
