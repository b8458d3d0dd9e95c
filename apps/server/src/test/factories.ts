/**
 * Test factories: members inserted straight into the database (no sign-up flow), and access
 * tokens for them. Every member gets a unique username and e-mail; the password, when asked for,
 * is hashed once per process and reused (argon2 is deliberately slow).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client.js';
import { refreshTokens, users } from '../db/schema.js';
import type { UserRow } from '../kernel/users.repo.js';
import { accessTokenKeys, signAccessToken } from '../modules/auth/access-token.js';
import { hashPassword } from '../modules/auth/passwords.js';
import { usernameSkeleton } from '../modules/users/usernames.js';
import { hashToken, newOpaqueToken } from '../tokens.js';

/** The password of every factory member created with `password: TEST_PASSWORD` (the default). */
export const TEST_PASSWORD = 'correct horse battery staple';

let testPasswordHash: Promise<string> | undefined;
function hashOf(password: string): Promise<string> {
  if (password !== TEST_PASSWORD) return hashPassword(password);
  testPasswordHash ??= hashPassword(TEST_PASSWORD);
  return testPasswordHash;
}

let sequence = 0;

export type UserOverrides = Partial<Omit<typeof users.$inferInsert, 'passwordHash'>> & {
  /** Plain password to hash; `null` for a social-only account. Default: TEST_PASSWORD. */
  password?: string | null;
};

export async function buildUser(db: Db, overrides: UserOverrides = {}): Promise<UserRow> {
  const { password = TEST_PASSWORD, ...fields } = overrides;
  sequence += 1;
  const name = `driver${sequence}_${Math.random().toString(36).slice(2, 8)}`;
  const [row] = await db
    .insert(users)
    .values({
      username: name,
      email: `${name}@example.test`,
      passwordHash: password === null ? null : await hashOf(password),
      termsAcceptedAt: new Date(),
      // As sign-up stores it, so look-alike checks see factory members too.
      usernameSkeleton: usernameSkeleton(fields.username ?? name),
      ...fields,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export function buildAdmin(db: Db, overrides: UserOverrides = {}): Promise<UserRow> {
  return buildUser(db, { isAdmin: true, ...overrides });
}

/**
 * A valid access token for the member, as login would issue; `seconds` shortens its lifetime (the
 * server's TTL by default) and `session` sets the session (refresh family) it belongs to.
 */
export function tokenFor(
  app: FastifyInstance,
  user: Pick<UserRow, 'id'>,
  options: { seconds?: number; session?: string } = {},
): Promise<string> {
  // The app's keys (`app.tokenKeys`) with this token's own lifetime when the test asks for one.
  const keys = accessTokenKeys(
    app.config.jwtSecret,
    options.seconds ?? app.config.accessTokenTtlSeconds,
    app.clock,
  );
  return signAccessToken(keys, user.id, options.session);
}

/** `{ authorization: 'Bearer …' }` for app.inject. */
export async function authHeader(
  app: FastifyInstance,
  user: Pick<UserRow, 'id'>,
): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await tokenFor(app, user)}` };
}

/** A refresh-token row of a new session family; returns the raw token (the cookie's value). */
export async function buildSession(
  db: Db,
  user: Pick<UserRow, 'id'>,
  familyId = randomUUID(),
): Promise<{ token: string; familyId: string }> {
  const token = newOpaqueToken();
  await db.insert(refreshTokens).values({
    userId: user.id,
    familyId,
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000),
  });
  return { token, familyId };
}
