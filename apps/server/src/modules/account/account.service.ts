/**
 * The member's own account: details, profile, theme, password, linked accounts and deletion (also
 * the admin's). Every change is committed before its events are emitted (the user cache and the
 * car list learn it before the answer leaves). The calls that check the current password spend
 * the wrong-password budget (wrong-passwords.ts); address changes are limited and take a fixed
 * least time (address-changes.ts).
 */
import {
  ERROR_KEYS,
  type Platform,
  type Theme,
  type UpdateDetailsRequest,
  type UpdateProfileRequest,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import type { AccessTokenClaims } from '../../http/authenticate.js';
import {
  findUserById,
  lockLiveUser,
  type UserChanges,
  type UserRow,
  updateUser,
} from '../../kernel/users.repo.js';
import type { AuthService } from '../auth/auth.service.js';
import { assertAcceptablePassword, hashPassword, verifyPassword } from '../auth/passwords.js';
import { acceptableUsername, isUsernameTaken, usernameSkeleton } from '../users/usernames.js';
import {
  emailTaken,
  PLATFORM_FIELD,
  refreshFamilyOf,
  scrubDeletedAccount,
  unlinkPlatformKeepingSignIn,
} from './account.repo.js';
import type { AddressChangeLimiter } from './address-changes.js';
import { assertDeletionConsent } from './deletion-consent.js';
import type { WrongPasswordBudget } from './wrong-passwords.js';

const inUseError = (): DomainError =>
  new DomainError('conflict', 'Email or username already in use', ERROR_KEYS.emailOrUsernameInUse);
const wrongPasswordError = (): DomainError =>
  new DomainError('invalid', 'Current password is incorrect', ERROR_KEYS.wrongCurrentPassword);

/** The part of a username before its last `#` (what the member typed and the web app shows). */
export function usernameBase(username: string): string {
  const hash = username.lastIndexOf('#');
  return hash === -1 ? username : username.slice(0, hash);
}

/** The name a deleted member keeps (the web app shows the part before `#`: "Deleted driver"). */
export const deletedUsername = (id: number): string => `Deleted driver#${id}`;

/** The address a details change asks for, if it differs from the member's (null: none). */
function newAddress(user: UserRow, request: UpdateDetailsRequest): string | null {
  const email = request.email ?? null;
  return email !== null && email !== user.email?.toLowerCase() ? email : null;
}

async function assertCurrentPassword(user: UserRow, currentPassword: string | undefined): Promise<void> {
  if (user.passwordHash === null) {
    throw new DomainError(
      'invalid',
      'Your account has no password yet. Set a password first, then change your details.',
      ERROR_KEYS.wrongCurrentPassword,
    );
  }
  if (currentPassword === undefined) {
    throw new DomainError('invalid', 'Current password is required', ERROR_KEYS.wrongCurrentPassword);
  }
  if (!(await verifyPassword(user.passwordHash, currentPassword))) throw wrongPasswordError();
}

export interface DeleteAccountOptions {
  /** Runs inside the deletion's transaction with the row as it was (the admin's audit record). */
  inTransaction?: (tx: Db, before: UserRow) => Promise<void>;
}

/** What the account does to the member's sessions and reset links, which the auth module owns. */
export type AccountSessions = Pick<
  AuthService,
  'revokeSessionsIn' | 'invalidateResetLinksIn' | 'sessionStartedAt'
>;

export interface AccountServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  wrongPasswords: WrongPasswordBudget;
  addressChanges: AddressChangeLimiter;
  sessions: AccountSessions;
}

export class AccountService {
  readonly #db: Db;
  readonly #events: EventBus;
  readonly #clock: Clock;
  readonly #wrongPasswords: WrongPasswordBudget;
  readonly #addressChanges: AddressChangeLimiter;
  readonly #sessions: AccountSessions;

  constructor(deps: AccountServiceDeps) {
    this.#db = deps.db;
    this.#events = deps.bus;
    this.#clock = deps.clock;
    this.#wrongPasswords = deps.wrongPasswords;
    this.#addressChanges = deps.addressChanges;
    this.#sessions = deps.sessions;
  }

  /** The member's row changed (committed). */
  #changed(row: UserRow): UserRow {
    this.#events.emit('user.changed', { userId: row.id, username: row.username });
    return row;
  }

  /** Updates the row, turning a unique-index race into the same 409 as the checks before it. */
  async #saveUnique(userId: number, changes: UserChanges): Promise<UserRow> {
    try {
      return await updateUser(this.#db, userId, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw inUseError();
      throw error;
    }
  }

  /**
   * Username and e-mail. A username equal to the current base keeps the current name (suffix
   * included); any other is taken exactly as typed. The e-mail changes only when given and
   * different, within the address-change limits of the member and of their `ip`.
   */
  updateDetails(user: UserRow, request: UpdateDetailsRequest, ip: string): Promise<UserRow> {
    return this.#wrongPasswords.checking(user.id, () =>
      newAddress(user, request) === null
        ? this.#saveDetails(user, request)
        : this.#addressChanges.guard(user.id, ip, () => this.#saveDetails(user, request)),
    );
  }

  async #saveDetails(user: UserRow, request: UpdateDetailsRequest): Promise<UserRow> {
    await assertCurrentPassword(user, request.currentPassword);
    const changes: UserChanges = {};
    if (request.username !== usernameBase(user.username)) {
      // Admins may carry a reserved name ("Support"); nobody an invisible character or a look-alike.
      const chosen = acceptableUsername(request.username, { allowReserved: user.isAdmin });
      if (chosen.username !== usernameBase(user.username)) {
        if (await isUsernameTaken(this.#db, chosen.username, user.id)) throw inUseError();
        changes.username = chosen.username;
        changes.usernameSkeleton = chosen.usernameSkeleton;
      }
    }
    const email = newAddress(user, request);
    if (email !== null) {
      if (await emailTaken(this.#db, email, user.id)) throw inUseError();
      changes.email = email;
    }
    if (Object.keys(changes).length === 0) return this.#changed(user);
    const saved = await this.#saveUnique(user.id, changes);
    // A reset link mailed to the old address must not outlive the address.
    if (changes.email !== undefined)
      await this.#sessions.invalidateResetLinksIn(this.#db, user.id, this.#clock.now());
    return this.#changed(saved);
  }

  async updateProfile(userId: number, request: UpdateProfileRequest): Promise<UserRow> {
    return this.#changed(
      await updateUser(this.#db, userId, { bio: request.bio, avatarUrl: request.avatar_url || null }),
    );
  }

  async updateTheme(userId: number, theme: Theme): Promise<UserRow> {
    return this.#changed(await updateUser(this.#db, userId, { preferredTheme: theme }));
  }

  /** The session family of the caller's own refresh token, if it is theirs. */
  sessionFamilyOf(userId: number, refreshToken: string): Promise<string | undefined> {
    return refreshFamilyOf(this.#db, userId, refreshToken);
  }

  /**
   * Sets (social-only account) or changes the password, then ends every other session: every
   * refresh family but `keepFamilyId` (the caller's, when known) is revoked, every access token
   * issued so far is refused (`tokens_valid_after`; the caller's page refreshes with its kept
   * cookie and goes on), outstanding reset links die, and the sockets of the ended sessions are
   * told to close. With the caller's session known, only the other sessions' sockets close (a
   * `user.sessions-revoked` would also throw the caller's own page out, right after its change).
   */
  changePassword(
    user: UserRow,
    request: { currentPassword?: string | undefined; newPassword: string },
    keepFamilyId: string | undefined,
  ): Promise<UserRow> {
    return this.#wrongPasswords.checking(user.id, () => this.#setPassword(user, request, keepFamilyId));
  }

  async #setPassword(
    user: UserRow,
    request: { currentPassword?: string | undefined; newPassword: string },
    keepFamilyId: string | undefined,
  ): Promise<UserRow> {
    if (user.passwordHash !== null) await assertCurrentPassword(user, request.currentPassword);
    assertAcceptablePassword(request.newPassword);
    const passwordHash = await hashPassword(request.newPassword);
    const { row, ended } = await this.#db.transaction(async (tx) => {
      // The clock the access tokens' `iat_ms` is read from: a token issued before this instant,
      // even in the same second, is refused.
      const now = this.#clock.now();
      const updated = await updateUser(tx, user.id, { passwordHash, tokensValidAfter: now });
      await this.#sessions.invalidateResetLinksIn(tx, user.id, now);
      return { row: updated, ended: await this.#sessions.revokeSessionsIn(tx, user.id, keepFamilyId) };
    });
    this.#changed(row);
    if (keepFamilyId === undefined) {
      this.#events.emit('user.sessions-revoked', { userId: user.id, reason: 'password_changed' });
    } else {
      for (const sessionId of ended) this.#events.emit('session.revoked', { userId: user.id, sessionId });
    }
    return row;
  }

  /**
   * Unlinks a social account, refusing to leave the member without any way to sign in. Loyalty
   * and donations of that identity stop counting for the member (they follow the identity, and
   * count again for whoever links it next: docs/integrations.md "Tickets").
   */
  async disconnectPlatform(user: UserRow, platform: Platform): Promise<UserRow> {
    const unlinked = await unlinkPlatformKeepingSignIn(this.#db, user.id, platform);
    if (unlinked) return this.#changed(unlinked);
    // Nothing matched: already unlinked (a parallel call for the same platform), or the last way
    // to sign in — the member's row as it is now says which.
    const current = await findUserById(this.#db, user.id);
    if (current && current[PLATFORM_FIELD[platform]] === null) return this.#changed(current);
    throw new DomainError(
      'conflict',
      'Set a password before disconnecting your last linked account.',
      ERROR_KEYS.lastSignInMethod,
    );
  }

  /** Whether the caller may delete their account now (deletion-consent.ts). */
  assertDeletionConsent(
    user: UserRow,
    claims: AccessTokenClaims,
    currentPassword: string | undefined,
  ): Promise<void> {
    return this.#wrongPasswords.checking(user.id, () =>
      assertDeletionConsent(
        (sessionId) => this.#sessions.sessionStartedAt(user.id, sessionId),
        user,
        claims,
        currentPassword,
        this.#clock.now().getTime(),
      ),
    );
  }

  /**
   * Deletes a live member (DELETE /me and the admin's DELETE /admin/users/:id); false when there is
   * no live member with that id. The row stays, scrubbed of personal data and renamed
   * `Deleted driver#<id>`, so race results keep an anonymous name. One transaction; sessions are
   * told to end once it is committed.
   */
  async deleteAccount(userId: number, options: DeleteAccountOptions = {}): Promise<boolean> {
    const username = deletedUsername(userId);
    const deleted = await this.#db.transaction(async (tx) => {
      const before = await lockLiveUser(tx, userId);
      if (!before) return false;
      const name = { username, usernameSkeleton: usernameSkeleton(username) };
      await scrubDeletedAccount(tx, userId, name, this.#clock.now());
      await options.inTransaction?.(tx, before);
      return true;
    });
    if (deleted) {
      this.#events.emit('user.changed', { userId, username });
      this.#events.emit('user.sessions-revoked', { userId, reason: 'account_deleted' });
    }
    return deleted;
  }
}
