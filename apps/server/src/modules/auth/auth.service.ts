/**
 * Accounts and sessions: sign-up, log-in, refresh-token rotation (with a grace window for
 * concurrent tabs and reuse detection), log-out (held until written while the database is away:
 * pending-logouts.ts), password reset, completing a registration.
 * Routes stay thin; everything here throws DomainError for the client-facing failures. Expiries
 * (sessions, reset links) come from the injected clock.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { ERROR_KEYS, type User } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, type ClockTimer, minutesAfter } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isDatabaseUnavailable, isStorageFull } from '../../db/unavailable.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError, secondsToWait } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import { findUserById, type UserRow } from '../../kernel/users.repo.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import { type Mailer, passwordResetMail } from '../mail/mailer.js';
import { presentUser } from '../users/user.presenter.js';
import { acceptableUsername } from '../users/usernames.js';
import { type AccessTokenKeys, signAccessToken } from './access-token.js';
import type { LoginThrottle } from './login-limiter.js';
import { acceptTerms, findUserByEmail, insertUser, setLivePassword, signupClash } from './members.repo.js';
import {
  consumeResetToken,
  countRecentResets,
  invalidateResetTokens,
  replaceResetToken,
} from './password-resets.repo.js';
import { assertAcceptablePassword, DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.js';
import { PENDING_LOGOUTS_RETRY_MS, type PendingLogouts } from './pending-logouts.js';
import {
  findRefreshToken,
  insertRefreshToken,
  markRefreshTokenUsed,
  recordLogin,
  revokeFamily,
  revokeUserSessions,
  sessionStartedAt,
  usedWithin,
} from './sessions.repo.js';

/** Absolute lifetime of a session (refresh-token family); rotation never extends it. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** A refresh token presented again within this many seconds of its first use still works (concurrent tabs). */
export const REFRESH_GRACE_SECONDS = 10;
export const RESET_TOKEN_MINUTES = 60;
/** Reset mails per account per rolling hour. */
export const RESET_MAILS_PER_HOUR = 3;

export const MESSAGES = {
  loggedOut: 'Logged out',
  loggedOutPending:
    'You are signed out on this device. We could not record it on our server right now; it will be recorded as soon as it is back.',
  resetRequested: 'If an account exists for this e-mail, a reset link is on its way.',
  passwordReset: 'Your password has been changed. You can now log in.',
} as const;

const invalidCredentials = () =>
  new DomainError('unauthorized', 'Invalid credentials', ERROR_KEYS.invalidCredentials);
const sessionExpired = () =>
  new DomainError(
    'unauthorized',
    'Your session has expired. Please log in again.',
    ERROR_KEYS.sessionExpired,
  );
const banned = () => new DomainError('forbidden', 'This account is banned', ERROR_KEYS.banned);
const resetTokenInvalid = () =>
  new DomainError('invalid', 'This reset link is invalid or has expired.', ERROR_KEYS.resetTokenInvalid);
const emailOrUsernameInUse = () =>
  new DomainError('conflict', 'Email or username already in use', ERROR_KEYS.emailOrUsernameInUse);

/** A new session as the client receives it: the access token and the refresh cookie's value. */
export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

export interface AuthServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  keys: AccessTokenKeys;
  mailer: Mailer;
  limiter: LoginThrottle;
  pendingLogouts: PendingLogouts;
  publicUrl: string;
}

/** Whether a log-out was written, or waits for the database (pending-logouts.ts). */
export type LogoutOutcome = 'recorded' | 'pending';

export class AuthService {
  #retryingLogouts: ClockTimer | undefined;

  constructor(private readonly deps: AuthServiceDeps) {}

  /** After the migrations: the log-outs held while the database was away are tried again, on and on. */
  start(): void {
    this.#retryingLogouts = this.deps.clock.setInterval(() => {
      this.recordPendingLogouts().catch((error: unknown) => {
        if (!isDatabaseUnavailable(error) && !isStorageFull(error))
          this.deps.log.warn({ err: error }, 'held log-outs could not be written');
      });
    }, PENDING_LOGOUTS_RETRY_MS);
  }

  /** Closes the mail transport and stops retrying log-outs (the server is stopping). */
  close(): void {
    this.deps.clock.clear(this.#retryingLogouts);
    this.deps.mailer.close();
  }

  /** Creates the account and signs the new member in: the same session as a log-in (issue 41 point 7). */
  async signup(
    input: { email: string; username: string; password: string },
    ip: string,
  ): Promise<IssuedSession> {
    const { db } = this.deps;
    assertAcceptablePassword(input.password);
    // Normalised, with no invisible characters and no reserved name; unique on its look-alike form.
    const { username, usernameSkeleton } = acceptableUsername(input.username);
    if (await signupClash(db, { email: input.email, username, usernameSkeleton })) {
      throw emailOrUsernameInUse();
    }
    const passwordHash = await hashPassword(input.password);
    let created: UserRow;
    try {
      created = await insertUser(db, {
        email: input.email,
        username,
        usernameSkeleton,
        passwordHash,
        termsAcceptedAt: this.deps.clock.now(),
      });
    } catch (error) {
      // Two sign-ups racing for the same name: the unique index decides.
      if (isUniqueViolation(error)) throw emailOrUsernameInUse();
      throw error;
    }
    this.deps.bus.emit('user.created', { userId: created.id, username: created.username });
    const session = await this.#startSession(created.id);
    await this.#recordLogin(created, ip);
    return session;
  }

  /**
   * Checks the credentials. Unknown e-mail, no password (social-only) and wrong password all
   * cost one argon2 verification and end in the same 401; only failures count toward the limit.
   */
  async login(input: { email: string; password: string }, ip: string): Promise<IssuedSession> {
    const { db, limiter } = this.deps;
    const waitMs = await limiter.retryAfterMs(input.email, ip);
    if (waitMs > 0) throw tooManyLoginAttempts(waitMs);

    const user = await findUserByEmail(db, input.email);
    const hash = user?.passwordHash ?? (await DUMMY_PASSWORD_HASH);
    const matches = await verifyPassword(hash, input.password);
    if (!user || user.passwordHash === null || !matches) {
      await limiter.recordFailure(input.email, ip);
      throw invalidCredentials();
    }
    // A banned account learns it is banned only with the right password, and that success does
    // not clear its failures (the ban is no reason to let guessing go on faster).
    if (user.isBanned) throw banned();
    await limiter.recordSuccess(input.email, ip);

    const session = await this.#startSession(user.id);
    await this.#recordLogin(user, ip);
    return session;
  }

  async #recordLogin(user: UserRow, ip: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.transaction((tx) => recordLogin(tx, user.id, ip, now));
    // /me shows last_login_at: the cached row goes.
    this.deps.bus.emit('user.changed', { userId: user.id, username: user.username });
  }

  /** Rotates a refresh token: the next token of the same family and a new access token. */
  async refresh(refreshToken: string | undefined): Promise<IssuedSession> {
    const { db, log, clock } = this.deps;
    if (!refreshToken) throw sessionExpired();
    const tokenHash = hashToken(refreshToken);
    await this.#settleLogout(tokenHash);
    const row = await findRefreshToken(db, tokenHash);
    const now = clock.now();
    if (!row || row.revokedAt !== null || row.expiresAt.getTime() <= now.getTime()) throw sessionExpired();

    const user = await findUserById(db, row.userId);
    if (!user || user.isBanned) {
      await revokeFamily(db, row.familyId, now);
      throw sessionExpired();
    }

    if (!(await markRefreshTokenUsed(db, row.id, now))) {
      // Already used. Moments ago: another tab of the same browser refreshed at the same time; it
      // gets the same successor below. Longer ago: the token was copied — end the whole session,
      // thief and owner alike.
      if (!(await usedWithin(db, row.id, REFRESH_GRACE_SECONDS, now))) {
        await revokeFamily(db, row.familyId, now);
        log.warn(
          { userId: row.userId, familyId: row.familyId },
          'refresh token reuse detected: session revoked',
        );
        this.deps.bus.emit('session.revoked', { userId: row.userId, sessionId: row.familyId });
        throw sessionExpired();
      }
    }
    return this.#issue(user.id, row.familyId, row.expiresAt, this.#successorOf(refreshToken));
  }

  /**
   * The one token that follows `refreshToken`, derived from it (HMAC under the server's secret):
   * every refresh with the same token, first use or replay inside the grace window, hands out
   * the same successor, so a family never has two live branches.
   */
  #successorOf(refreshToken: string): string {
    return createHmac('sha256', this.deps.keys.secret)
      .update(`refresh-successor:${refreshToken}`)
      .digest('base64url');
  }

  /**
   * Ends the session the refresh token belongs to, if any, and the sockets it opened. While the
   * database cannot write it, the log-out is held and written as soon as it can be ('pending'):
   * the token refreshes nothing meanwhile.
   */
  async logout(refreshToken: string | undefined): Promise<LogoutOutcome> {
    if (!refreshToken) return 'recorded';
    const tokenHash = hashToken(refreshToken);
    try {
      await this.#endSessionOf(tokenHash);
      return 'recorded';
    } catch (error) {
      if (!isDatabaseUnavailable(error) && !isStorageFull(error)) throw error;
      if (await this.deps.pendingLogouts.hold(tokenHash))
        this.deps.log.warn('log-out held: the database cannot record it now, it will be written once it can');
      else this.deps.log.error('log-out lost: the database cannot record it and no room is left to hold it');
      return 'pending';
    }
  }

  /** Writes the log-outs held while the database was away; throws while it still is. */
  recordPendingLogouts(): Promise<void> {
    return this.deps.pendingLogouts.settleAll((tokenHash) => this.#endSessionOf(tokenHash));
  }

  /** A held log-out of this token is written before the token is used (a refresh, a sign-in by cookie). */
  #settleLogout(tokenHash: string): Promise<void> {
    return this.deps.pendingLogouts.settle(tokenHash, (hash) => this.#endSessionOf(hash));
  }

  async #endSessionOf(tokenHash: string): Promise<void> {
    const row = await findRefreshToken(this.deps.db, tokenHash);
    if (!row) return;
    await revokeFamily(this.deps.db, row.familyId, this.deps.clock.now());
    this.deps.bus.emit('session.revoked', { userId: row.userId, sessionId: row.familyId });
  }

  /** Always completes the same way; sends a link only for a live account under the hourly cap. */
  async requestPasswordReset(email: string): Promise<void> {
    const { db, log, mailer, publicUrl, clock } = this.deps;
    const user = await findUserByEmail(db, email);
    if (!user?.email) return;
    const now = clock.now();
    if ((await countRecentResets(db, user.id, minutesAfter(now, -60))) >= RESET_MAILS_PER_HOUR) {
      log.info({ userId: user.id }, 'password reset not sent: hourly limit reached');
      return;
    }
    const token = newOpaqueToken();
    await replaceResetToken(
      db,
      { userId: user.id, tokenHash: hashToken(token), expiresAt: minutesAfter(now, RESET_TOKEN_MINUTES) },
      now,
    );
    const message = passwordResetMail(
      user.email,
      `${publicUrl}/reset-password/${token}`,
      RESET_TOKEN_MINUTES,
    );
    // Not awaited: answering after the SMTP exchange would tell who has an account.
    mailer
      .send(message)
      .then(() => log.info({ userId: user.id }, 'password reset e-mail sent'))
      .catch((error: unknown) => log.error({ err: error, userId: user.id }, 'password reset e-mail failed'));
  }

  async resetPassword(token: string, newPassword: string): Promise<void> {
    const { db, bus, limiter, clock } = this.deps;
    assertAcceptablePassword(newPassword);
    const passwordHash = await hashPassword(newPassword);
    const now = clock.now();
    const reset = await db.transaction(async (tx) => {
      const id = await consumeResetToken(tx, hashToken(token), now);
      if (id === null) return null;
      // tokens_valid_after: access tokens issued before the reset die with the old password (the
      // clock the tokens' `iat_ms` is read from).
      const row = await setLivePassword(tx, id, { passwordHash, tokensValidAfter: now });
      if (!row) return null;
      await invalidateResetTokens(tx, id, now);
      await revokeUserSessions(tx, id, now);
      return { userId: id, username: row.username, email: row.email };
    });
    if (reset === null) throw resetTokenInvalid();
    const { userId, username, email } = reset;
    // After the commit: the old password's guessers have nothing left to guess.
    if (email) await limiter.clearAccount(email);
    bus.emit('user.changed', { userId, username });
    bus.emit('user.sessions-revoked', { userId, reason: 'password_changed' });
  }

  async completeRegistration(user: UserRow): Promise<User> {
    if (user.termsAcceptedAt !== null) return presentUser(user);
    const row = await acceptTerms(this.deps.db, user.id, this.deps.clock.now());
    this.deps.bus.emit('user.changed', { userId: user.id, username: row?.username ?? user.username });
    return presentUser(row ?? user);
  }

  /**
   * A sign-in proven elsewhere (a one-time login code, see login-codes.ts): the same session,
   * login history and ban check as the form's login. Null when the member no longer exists.
   */
  async signInVerified(userId: number, ip: string): Promise<IssuedSession | null> {
    const { db } = this.deps;
    const user = await findUserById(db, userId);
    if (!user) return null;
    if (user.isBanned) throw banned();
    const session = await this.#startSession(user.id);
    await this.#recordLogin(user, ip);
    return session;
  }

  /**
   * The member a browser navigation to /api/connect/{platform} comes from when it carries no
   * access token: the refresh cookie (httpOnly, SameSite=Strict, path /api — sent on a same-site
   * navigation only) names them, read without rotating it. Only the browser's current token
   * counts: one used more than a few seconds ago was replaced, and is refused.
   */
  async memberOfRefreshToken(refreshToken: string | undefined): Promise<UserRow | null> {
    if (!refreshToken) return null;
    const tokenHash = hashToken(refreshToken);
    await this.#settleLogout(tokenHash);
    const row = await findRefreshToken(this.deps.db, tokenHash);
    const now = this.deps.clock.now().getTime();
    if (!row || row.revokedAt !== null || row.expiresAt.getTime() <= now) return null;
    if (row.usedAt !== null && now - row.usedAt.getTime() > REFRESH_GRACE_SECONDS * 1000) return null;
    const member = await findUserById(this.deps.db, row.userId);
    return member && !member.isBanned ? member : null;
  }

  /**
   * Ends every session of a member at the clock's now, or every one but `exceptSessionId` (the
   * caller's own), inside the caller's transaction (a ban, a password change): the ids of the
   * sessions it ended. The caller emits the facts once its transaction commits.
   */
  revokeSessionsIn(tx: Db, userId: number, exceptSessionId?: string): Promise<string[]> {
    return revokeUserSessions(tx, userId, this.deps.clock.now(), exceptSessionId);
  }

  /** Kills the member's outstanding reset links (a new password or e-mail), in the caller's transaction if any. */
  invalidateResetLinksIn(db: Db, userId: number, now: Date): Promise<void> {
    return invalidateResetTokens(db, userId, now);
  }

  /** When the member's session (refresh-token family) began, i.e. when they signed in; undefined if unknown. */
  sessionStartedAt(userId: number, sessionId: string): Promise<Date | undefined> {
    return sessionStartedAt(this.deps.db, userId, sessionId);
  }

  async #startSession(userId: number): Promise<IssuedSession> {
    const now = this.deps.clock.now();
    return this.#issue(userId, randomUUID(), new Date(now.getTime() + SESSION_LIFETIME_MS));
  }

  async #issue(
    userId: number,
    familyId: string,
    expiresAt: Date,
    refreshToken: string = newOpaqueToken(),
  ): Promise<IssuedSession> {
    // A successor already stored (a concurrent refresh or a replay) is kept as it is.
    await insertRefreshToken(this.deps.db, {
      userId,
      familyId,
      tokenHash: hashToken(refreshToken),
      createdAt: this.deps.clock.now(),
      expiresAt,
    });
    const accessToken = await signAccessToken(this.deps.keys, userId, familyId);
    return { accessToken, refreshToken, expiresAt };
  }
}

/** "N seconds" under a minute (the first delays are 1 s, 2 s, 4 s…), else "N minutes". */
function waitText(waitMs: number): string {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export function tooManyLoginAttempts(waitMs: number): DomainError {
  return new DomainError(
    'rate_limited',
    `Too many login attempts. Try again in ${waitText(waitMs)}.`,
    ERROR_KEYS.tooManyLoginAttempts,
    { retryAfterSeconds: secondsToWait(waitMs) },
  );
}
