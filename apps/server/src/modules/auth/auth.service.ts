/**
 * Accounts and sessions: sign-up, log-in, refresh-token rotation (with a grace window for
 * concurrent tabs and reuse detection), log-out, password reset, completing a registration.
 * Routes stay thin; everything here throws HttpError for the client-facing failures.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { ERROR_KEYS, type User } from '@telerace/protocol';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { loginHistory, users } from '../../db/schema.js';
import type { EventBus } from '../../events.js';
import { HttpError } from '../../http/errors.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import { type Mailer, passwordResetMail } from '../mail/mailer.js';
import { presentUser } from '../users/user.presenter.js';
import { acceptableUsername } from '../users/usernames.js';
import { findUserByEmail, findUserById, type UserRow } from '../users/users.repo.js';
import { type AccessTokenKeys, signAccessToken } from './access-token.js';
import type { LoginLimiter } from './login-limiter.js';
import {
  consumeResetToken,
  countRecentResets,
  invalidateResetTokens,
  replaceResetToken,
} from './password-resets.repo.js';
import { assertAcceptablePassword, DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.js';
import {
  findRefreshToken,
  insertRefreshToken,
  markRefreshTokenUsed,
  revokeFamily,
  revokeUserSessions,
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
  signedUp: 'Account created. You can now log in.',
  loggedOut: 'Logged out',
  resetRequested: 'If an account exists for this e-mail, a reset link is on its way.',
  passwordReset: 'Your password has been changed. You can now log in.',
} as const;

const invalidCredentials = () => new HttpError(401, 'Invalid credentials', ERROR_KEYS.invalidCredentials);
const sessionExpired = () =>
  new HttpError(401, 'Your session has expired. Please log in again.', ERROR_KEYS.sessionExpired);
const banned = () => new HttpError(403, 'This account is banned', ERROR_KEYS.banned);
const resetTokenInvalid = () =>
  new HttpError(400, 'This reset link is invalid or has expired.', ERROR_KEYS.resetTokenInvalid);
export const emailOrUsernameInUse = () =>
  new HttpError(409, 'Email or username already in use', ERROR_KEYS.emailOrUsernameInUse);

/** A new session as the client receives it: the access token and the refresh cookie's value. */
export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

export interface AuthServiceDeps {
  db: Db;
  keys: AccessTokenKeys;
  events: EventBus;
  log: FastifyBaseLogger;
  mailer: Mailer;
  limiter: LoginLimiter;
  publicUrl: string;
}

/** PostgreSQL's unique_violation, whether drizzle wraps the driver's error or not. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  /** Closes the mail transport (the server is stopping). */
  close(): void {
    this.deps.mailer.close();
  }

  async signup(input: { email: string; username: string; password: string }): Promise<void> {
    const { db } = this.deps;
    assertAcceptablePassword(input.password);
    // Normalised, with no invisible characters and no reserved name; unique on its look-alike form.
    const { username, usernameSkeleton } = acceptableUsername(input.username);
    const clash = await db
      .select({ id: users.id })
      .from(users)
      .where(
        sql`lower(${users.email}) = lower(${input.email}) or lower(${users.username}) = lower(${username}) or ${users.usernameSkeleton} = ${usernameSkeleton}`,
      )
      .limit(1);
    if (clash.length > 0) throw emailOrUsernameInUse();
    const passwordHash = await hashPassword(input.password);
    try {
      await db.insert(users).values({
        email: input.email,
        username,
        usernameSkeleton,
        passwordHash,
        termsAcceptedAt: new Date(),
      });
    } catch (error) {
      // Two sign-ups racing for the same name: the unique index decides.
      if (isUniqueViolation(error)) throw emailOrUsernameInUse();
      throw error;
    }
  }

  /**
   * Checks the credentials. Unknown e-mail, no password (social-only) and wrong password all
   * cost one argon2 verification and end in the same 401; only failures count toward the limit.
   */
  async login(input: { email: string; password: string }, ip: string): Promise<IssuedSession> {
    const { db, limiter } = this.deps;
    const waitMs = limiter.retryAfterMs(input.email, ip);
    if (waitMs > 0) throw tooManyLoginAttempts(waitMs);

    const user = await findUserByEmail(db, input.email);
    const hash = user?.passwordHash ?? (await DUMMY_PASSWORD_HASH);
    const matches = await verifyPassword(hash, input.password);
    if (!user || user.passwordHash === null || !matches) {
      limiter.recordFailure(input.email, ip);
      throw invalidCredentials();
    }
    // A banned account learns it is banned only with the right password, and that success does
    // not clear its failures (the ban is no reason to let guessing go on faster).
    if (user.isBanned) throw banned();
    limiter.recordSuccess(input.email, ip);

    const session = await this.#startSession(user.id);
    await db.transaction(async (tx) => {
      await tx.insert(loginHistory).values({ userId: user.id, ip });
      await tx.update(users).set({ lastLoginAt: sql`now()` }).where(eq(users.id, user.id));
    });
    // /me shows last_login_at: the cached row goes.
    this.deps.events.emit('user.changed', { userId: user.id, username: user.username });
    return session;
  }

  /** Rotates a refresh token: the next token of the same family and a new access token. */
  async refresh(refreshToken: string | undefined): Promise<IssuedSession> {
    const { db, log } = this.deps;
    if (!refreshToken) throw sessionExpired();
    const row = await findRefreshToken(db, hashToken(refreshToken));
    if (!row || row.revokedAt !== null || row.expiresAt.getTime() <= Date.now()) throw sessionExpired();

    const user = await findUserById(db, row.userId);
    if (!user || user.isBanned) {
      await revokeFamily(db, row.familyId);
      throw sessionExpired();
    }

    if (!(await markRefreshTokenUsed(db, row.id))) {
      // Already used. Moments ago: another tab of the same browser refreshed at the same time; it
      // gets the same successor below. Longer ago: the token was copied — end the whole session,
      // thief and owner alike.
      if (!(await usedWithin(db, row.id, REFRESH_GRACE_SECONDS))) {
        await revokeFamily(db, row.familyId);
        log.warn(
          { userId: row.userId, familyId: row.familyId },
          'refresh token reuse detected: session revoked',
        );
        this.deps.events.emit('session.revoked', { userId: row.userId, sessionId: row.familyId });
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

  /** Ends the session the refresh token belongs to, if any, and the sockets it opened. */
  async logout(refreshToken: string | undefined): Promise<void> {
    if (!refreshToken) return;
    const row = await findRefreshToken(this.deps.db, hashToken(refreshToken));
    if (!row) return;
    await revokeFamily(this.deps.db, row.familyId);
    this.deps.events.emit('session.revoked', { userId: row.userId, sessionId: row.familyId });
  }

  /** Always completes the same way; sends a link only for a live account under the hourly cap. */
  async requestPasswordReset(email: string): Promise<void> {
    const { db, log, mailer, publicUrl } = this.deps;
    const user = await findUserByEmail(db, email);
    if (!user?.email) return;
    if ((await countRecentResets(db, user.id, 60)) >= RESET_MAILS_PER_HOUR) {
      log.info({ userId: user.id }, 'password reset not sent: hourly limit reached');
      return;
    }
    const token = newOpaqueToken();
    await replaceResetToken(db, {
      userId: user.id,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + RESET_TOKEN_MINUTES * 60_000),
    });
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
    const { db, events, limiter } = this.deps;
    assertAcceptablePassword(newPassword);
    const passwordHash = await hashPassword(newPassword);
    const reset = await db.transaction(async (tx) => {
      const id = await consumeResetToken(tx, hashToken(token));
      if (id === null) return null;
      // tokens_valid_after: access tokens issued before the reset die with the old password (the
      // server's clock, as the tokens' `iat` is).
      const updated = await tx
        .update(users)
        .set({ passwordHash, tokensValidAfter: new Date() })
        .where(and(eq(users.id, id), isNull(users.deletedAt)))
        .returning({ email: users.email, username: users.username });
      const [row] = updated;
      if (!row) return null;
      await invalidateResetTokens(tx, id);
      await revokeUserSessions(tx, id);
      if (row.email) limiter.clearAccount(row.email);
      return { userId: id, username: row.username };
    });
    if (reset === null) throw resetTokenInvalid();
    const { userId } = reset;
    events.emit('user.changed', reset);
    events.emit('user.sessions-revoked', { userId, reason: 'password_changed' });
  }

  async completeRegistration(user: UserRow): Promise<User> {
    if (user.termsAcceptedAt !== null) return presentUser(user);
    const [row] = await this.deps.db
      .update(users)
      .set({ termsAcceptedAt: sql`coalesce(${users.termsAcceptedAt}, now())` })
      .where(eq(users.id, user.id))
      .returning();
    this.deps.events.emit('user.changed', { userId: user.id, username: row?.username ?? user.username });
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
    await db.transaction(async (tx) => {
      await tx.insert(loginHistory).values({ userId: user.id, ip });
      await tx.update(users).set({ lastLoginAt: sql`now()` }).where(eq(users.id, user.id));
    });
    // /me shows last_login_at: the cached row goes.
    this.deps.events.emit('user.changed', { userId: user.id, username: user.username });
    return session;
  }

  async #startSession(userId: number): Promise<IssuedSession> {
    return this.#issue(userId, randomUUID(), new Date(Date.now() + SESSION_LIFETIME_MS));
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

export function tooManyLoginAttempts(waitMs: number): HttpError & { retryAfterSeconds: number } {
  const error = new HttpError(
    429,
    `Too many login attempts. Try again in ${waitText(waitMs)}.`,
    ERROR_KEYS.tooManyLoginAttempts,
  ) as HttpError & { retryAfterSeconds: number };
  error.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return error;
}
