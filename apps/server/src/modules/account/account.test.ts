import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import {
  loginHistory,
  passwordResets,
  refreshTokens,
  subscriptions,
  ticketLedger,
  users,
} from '../../db/schema.js';
import type { DomainEvents } from '../../events.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import {
  authHeader,
  buildSession,
  buildUser,
  TEST_PASSWORD,
  type UserOverrides,
} from '../../test/factories.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../auth/access-token.js';
import { verifyPassword } from '../auth/passwords.js';
import { ADDRESS_CHANGE_MIN_MS } from './address-changes.js';

const unique = () => Math.random().toString(36).slice(2, 10);

describe('account (/api/me…)', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  let db: Db;
  beforeAll(async () => {
    testApp = await startTestApp();
    db = testApp.app.database.db;
  });
  afterAll(() => testApp.close());

  /** An access token as the server signs them, but issued `secondsAgo` seconds ago. */
  function tokenIssuedAgo(userId: number, secondsAgo: number, sessionId?: string): Promise<string> {
    const iat = Math.floor(Date.now() / 1000) - secondsAgo;
    return new SignJWT(sessionId ? { sid: sessionId } : {})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(userId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuer(TOKEN_ISSUER)
      .sign(new TextEncoder().encode(testApp.app.config.jwtSecret));
  }

  /** A new member and a function calling the API as them. */
  async function member(overrides: UserOverrides = {}) {
    const user = await buildUser(db, overrides);
    const headers = await authHeader(testApp.app, user);
    const call = (method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: object, cookies = {}) =>
      testApp.app.inject({ method, url, headers, cookies, ...(payload ? { payload } : {}) });
    return { user, headers, call };
  }
  const rowOf = async (id: number) => (await db.select().from(users).where(eq(users.id, id)))[0];

  describe('GET /me', () => {
    it('refuses anonymous callers and bad tokens', async () => {
      expect((await testApp.app.inject('/api/me')).statusCode).toBe(401);
      const response = await testApp.app.inject({
        url: '/api/me',
        headers: { authorization: 'Bearer nope' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().errorKey).toBe('errors.unauthorized');
    });

    it('returns the member without secrets', async () => {
      const { user, call } = await member({ twitchId: `tw-${unique()}` });
      const response = await call('GET', '/api/me');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.user).toMatchObject({
        id: user.id,
        username: user.username,
        email: user.email,
        has_password: true,
        twitch_id: user.twitchId,
        preferred_theme: 'dark',
      });
      expect(JSON.stringify(body)).not.toContain('argon2');
    });
  });

  describe('PATCH /me/details', () => {
    it('refuses a wrong current password', async () => {
      const { user, call } = await member();
      const response = await call('PATCH', '/api/me/details', {
        username: 'Whatever',
        currentPassword: 'not the password',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: 'Current password is incorrect',
        errorKey: 'errors.wrongCurrentPassword',
      });
      expect((await rowOf(user.id))?.username).toBe(user.username);
    });

    it('tells a member without a password to set one first', async () => {
      const { call } = await member({ password: null, discordId: `d-${unique()}` });
      const response = await call('PATCH', '/api/me/details', { username: 'x', currentPassword: 'anything' });
      expect(response.statusCode).toBe(400);
      expect(response.json().errorKey).toBe('errors.wrongCurrentPassword');
      expect(response.json().error).toMatch(/set a password first/i);
    });

    it('keeps the #suffix when the base is unchanged, and changes the e-mail', async () => {
      const base = `Racer${unique()}`;
      const { user, call } = await member({ username: `${base}#${unique()}` });
      const email = `new-${unique()}@example.test`;
      const response = await call('PATCH', '/api/me/details', {
        username: base,
        email: email.toUpperCase(),
        currentPassword: TEST_PASSWORD,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        user: expect.objectContaining({ username: user.username, email }),
        message: 'Your details were updated.',
      });
    });

    it('takes a new base exactly as typed, without a suffix', async () => {
      const { user, call } = await member({ username: `Old${unique()}#7` });
      const typed = `New ${unique()}`;
      const response = await call('PATCH', '/api/me/details', {
        username: typed,
        currentPassword: TEST_PASSWORD,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().user.username).toBe(typed);
      expect((await rowOf(user.id))?.email).toBe(user.email);
    });

    it('refuses a username taken by someone else, whatever the case', async () => {
      const other = await buildUser(db, { username: `Taken${unique()}` });
      const { user, call } = await member();
      const response = await call('PATCH', '/api/me/details', {
        username: other.username.toUpperCase(),
        currentPassword: TEST_PASSWORD,
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'Email or username already in use',
        errorKey: 'errors.emailOrUsernameInUse',
      });
      expect((await rowOf(user.id))?.username).toBe(user.username);
    });

    it('lets a member change the case of their own name', async () => {
      const name = `casey${unique()}`;
      const { call } = await member({ username: name });
      const response = await call('PATCH', '/api/me/details', {
        username: name.toUpperCase(),
        currentPassword: TEST_PASSWORD,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().user.username).toBe(name.toUpperCase());
    });

    it('changes the e-mail only when given and different; refuses one in use', async () => {
      const other = await buildUser(db);
      const { user, call } = await member();
      const base = user.username;
      const same = await call('PATCH', '/api/me/details', {
        username: base,
        email: user.email?.toUpperCase() ?? null,
        currentPassword: TEST_PASSWORD,
      });
      expect(same.statusCode).toBe(200);
      const absent = await call('PATCH', '/api/me/details', {
        username: base,
        email: null,
        currentPassword: TEST_PASSWORD,
      });
      expect(absent.json().user.email).toBe(user.email);
      const clash = await call('PATCH', '/api/me/details', {
        username: base,
        email: other.email,
        currentPassword: TEST_PASSWORD,
      });
      expect(clash.statusCode).toBe(409);
      expect(clash.json().errorKey).toBe('errors.emailOrUsernameInUse');
      expect((await rowOf(user.id))?.email).toBe(user.email);
    });

    it('validates the username (no #, max 30)', async () => {
      const { call } = await member();
      for (const username of ['a#b', 'x'.repeat(31)]) {
        const response = await call('PATCH', '/api/me/details', { username, currentPassword: TEST_PASSWORD });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toContain('body.username');
      }
    });
  });

  describe('PATCH /me/details: probing addresses is slow', () => {
    const details = (
      user: UserRow,
      headers: Record<string, string>,
      email: string | null,
      remoteAddress: string,
      password = TEST_PASSWORD,
    ) =>
      testApp.app.inject({
        method: 'PATCH',
        url: '/api/me/details',
        headers,
        remoteAddress,
        payload: { username: user.username, email, currentPassword: password },
      });

    it('allows 5 address changes per account per hour, then 429 with Retry-After; a wrong password and username changes do not count', async () => {
      const { user, headers } = await member();
      const ip = '10.7.0.1';
      expect(
        (await details(user, headers, `x-${unique()}@example.test`, ip, 'wrong password')).statusCode,
      ).toBe(400);
      for (let i = 0; i < 5; i++) {
        expect((await details(user, headers, `step${i}-${unique()}@example.test`, ip)).statusCode).toBe(200);
      }
      const blocked = await details(user, headers, `six-${unique()}@example.test`, '10.7.0.2');
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().errorKey).toBe('errors.tooManyRequests');
      expect(blocked.json().error).toMatch(/^Too many address changes\. Try again in \d+ minutes?\.$/);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3500);
      // Unchanged address: no address change, no limit.
      const current = (await rowOf(user.id))?.email ?? null;
      expect((await details(user, headers, current, ip)).statusCode).toBe(200);
      const rename = await testApp.app.inject({
        method: 'PATCH',
        url: '/api/me/details',
        headers,
        remoteAddress: ip,
        payload: { username: `Renamed${unique()}`, currentPassword: TEST_PASSWORD },
      });
      expect(rename.statusCode).toBe(200);
    });

    it('is the service’s refusal, with when to try again, whoever calls it', async () => {
      const user = await buildUser(db);
      const change = (step: number) =>
        testApp.app.account.updateDetails(
          user,
          {
            username: user.username,
            email: `svc${step}-${unique()}@example.test`,
            currentPassword: TEST_PASSWORD,
          },
          '10.7.3.1',
        );
      for (let step = 0; step < 5; step++) await change(step);
      await expect(change(5)).rejects.toMatchObject({
        kind: 'rate_limited',
        message: expect.stringMatching(/^Too many address changes/),
        retryAfterSeconds: expect.any(Number),
      });
    });

    it('allows 20 address changes per IP per hour across accounts', async () => {
      const ip = '10.7.1.1';
      const members = await Promise.all(Array.from({ length: 5 }, () => member()));
      // Four members take 5 each, taken or free addresses alike.
      const taken = members[4]?.user.email ?? '';
      await Promise.all(
        members.slice(0, 4).map(async ({ user, headers }, m) => {
          for (let i = 0; i < 5; i++) {
            const email = i % 2 === 0 ? taken : `ip-${m}-${i}-${unique()}@example.test`;
            expect([200, 409]).toContain((await details(user, headers, email, ip)).statusCode);
          }
        }),
      );
      const fifth = members[4];
      if (!fifth) throw new Error('no fifth member');
      const blocked = await details(fifth.user, fifth.headers, `fifth-${unique()}@example.test`, ip);
      expect(blocked.statusCode).toBe(429);
      expect(
        (await details(fifth.user, fifth.headers, `fifth-${unique()}@example.test`, '10.7.1.2')).statusCode,
      ).toBe(200);
    });

    it('answers a taken and a free address in the same time (at least the floor, medians within 25 ms)', async () => {
      const taken = await buildUser(db);
      const timings: Record<'taken' | 'free', number[]> = { taken: [], free: [] };
      for (let round = 0; round < 5; round++) {
        for (const kind of ['taken', 'free'] as const) {
          const { user, headers } = await member();
          const email = kind === 'taken' ? (taken.email ?? '') : `free-${unique()}@example.test`;
          const started = performance.now();
          const response = await details(
            user,
            headers,
            email,
            `10.7.2.${round * 2 + (kind === 'taken' ? 1 : 2)}`,
          );
          timings[kind].push(performance.now() - started);
          expect(response.statusCode).toBe(kind === 'taken' ? 409 : 200);
        }
      }
      const median = (values: number[]) =>
        [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      for (const ms of [...timings.taken, ...timings.free])
        expect(ms).toBeGreaterThanOrEqual(ADDRESS_CHANGE_MIN_MS - 1);
      expect(Math.abs(median(timings.taken) - median(timings.free))).toBeLessThan(25);
    });
  });

  describe('PATCH /me (profile)', () => {
    it('saves bio and avatar; an empty avatar means none', async () => {
      const { call } = await member();
      const saved = await call('PATCH', '/api/me', { bio: 'Fast.', avatar_url: 'https://cdn.example/a.png' });
      expect(saved.statusCode).toBe(200);
      expect(saved.json().user).toMatchObject({ bio: 'Fast.', avatar_url: 'https://cdn.example/a.png' });
      const cleared = await call('PATCH', '/api/me', { bio: '', avatar_url: '' });
      expect(cleared.json().user).toMatchObject({ bio: '', avatar_url: null });
      const nulled = await call('PATCH', '/api/me', { bio: 'x', avatar_url: null });
      expect(nulled.json().user.avatar_url).toBeNull();
    });

    it('refuses a bio over 500 characters, naming the field', async () => {
      const { call } = await member();
      const response = await call('PATCH', '/api/me', { bio: 'b'.repeat(501), avatar_url: null });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toContain('body.bio');
      expect(response.json().errorKey).toBe('errors.validation');
    });

    it('refuses a non-http avatar URL', async () => {
      const { user, call } = await member();
      for (const avatar_url of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://x.example/a']) {
        const response = await call('PATCH', '/api/me', { bio: '', avatar_url });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toContain('body.avatar_url');
      }
      expect((await rowOf(user.id))?.avatarUrl).toBeNull();
    });
  });

  describe('PATCH /me/theme', () => {
    it('saves dark or light, nothing else', async () => {
      const { call } = await member();
      const light = await call('PATCH', '/api/me/theme', { preferred_theme: 'light' });
      expect(light.statusCode).toBe(200);
      expect(light.json().user.preferred_theme).toBe('light');
      expect((await call('PATCH', '/api/me/theme', { preferred_theme: 'pink' })).statusCode).toBe(400);
    });
  });

  describe('POST /me/password', () => {
    const revokedOf = async (familyId: string) =>
      (await db.select().from(refreshTokens).where(eq(refreshTokens.familyId, familyId))).map(
        (row) => row.revokedAt !== null,
      );

    it('changes the password, ending every other session but the caller’s', async () => {
      const { user, call } = await member();
      const own = await buildSession(db, user);
      const other = await buildSession(db, user);
      const stranger = await buildSession(db, await buildUser(db));
      const response = await call(
        'POST',
        '/api/me/password',
        { currentPassword: TEST_PASSWORD, newPassword: 'a much better passphrase' },
        { telerace_refresh: own.token },
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        message: 'Your password was changed.',
        user: expect.objectContaining({ id: user.id, has_password: true }),
      });
      expect(await revokedOf(own.familyId)).toEqual([false]);
      expect(await revokedOf(other.familyId)).toEqual([true]);
      expect(await revokedOf(stranger.familyId)).toEqual([false]);
      const row = await rowOf(user.id);
      expect(await verifyPassword(row?.passwordHash ?? '', 'a much better passphrase')).toBe(true);
    });

    it('refuses access tokens issued before the change; the caller’s session refreshes and goes on', async () => {
      const { user } = await member();
      const own = await buildSession(db, user);
      const other = await buildSession(db, user);
      const oldToken = await tokenIssuedAgo(user.id, 5, own.familyId);
      const oldHeaders = { authorization: `Bearer ${oldToken}` };
      expect((await testApp.app.inject({ url: '/api/me', headers: oldHeaders })).statusCode).toBe(200);
      const revokedUser: unknown[] = [];
      const revokedSessions: DomainEvents['session.revoked'][] = [];
      const offUser = testApp.app.events.on('user.sessions-revoked', (event) => revokedUser.push(event));
      const offSession = testApp.app.events.on('session.revoked', (event) => revokedSessions.push(event));
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/api/me/password',
        headers: oldHeaders,
        cookies: { telerace_refresh: own.token },
        payload: { currentPassword: TEST_PASSWORD, newPassword: 'a much better passphrase' },
      });
      offUser();
      offSession();
      expect(response.statusCode).toBe(200);
      // The other session's sockets close; the caller's page keeps its own.
      expect(revokedSessions).toEqual([{ userId: user.id, sessionId: other.familyId }]);
      expect(revokedUser).toEqual([]);
      const stale = await testApp.app.inject({ url: '/api/me', headers: oldHeaders });
      expect(stale.statusCode).toBe(401);
      expect(stale.json().errorKey).toBe('errors.unauthorized');
      // What the web app does on that 401: refresh with its cookie (its session was kept) and retry.
      const refreshed = await testApp.app.inject({
        method: 'POST',
        url: '/api/refresh-token',
        cookies: { telerace_refresh: own.token },
      });
      expect(refreshed.statusCode).toBe(200);
      const retried = await testApp.app.inject({
        url: '/api/me',
        headers: { authorization: `Bearer ${refreshed.json().accessToken}` },
      });
      expect(retried.statusCode).toBe(200);
    });

    it('without the caller’s session known, every session ends and user.sessions-revoked is emitted', async () => {
      const { user, call } = await member();
      await buildSession(db, user);
      const revokedUser: DomainEvents['user.sessions-revoked'][] = [];
      const off = testApp.app.events.on('user.sessions-revoked', (event) => revokedUser.push(event));
      const response = await call('POST', '/api/me/password', {
        currentPassword: TEST_PASSWORD,
        newPassword: 'a much better passphrase',
      });
      off();
      expect(response.statusCode).toBe(200);
      expect(revokedUser).toEqual([{ userId: user.id, reason: 'password_changed' }]);
    });

    it('ends every session when the caller’s own cannot be identified', async () => {
      const { user, call } = await member();
      const one = await buildSession(db, user);
      const someoneElses = await buildSession(db, await buildUser(db));
      const response = await call(
        'POST',
        '/api/me/password',
        { currentPassword: TEST_PASSWORD, newPassword: 'another fine passphrase' },
        // Another member's cookie is not the caller's session.
        { telerace_refresh: someoneElses.token },
      );
      expect(response.statusCode).toBe(200);
      expect(await revokedOf(one.familyId)).toEqual([true]);
      expect(await revokedOf(someoneElses.familyId)).toEqual([false]);
    });

    it('requires the right current password when the account has one', async () => {
      const { call } = await member();
      const wrong = await call('POST', '/api/me/password', {
        currentPassword: 'wrong one',
        newPassword: 'a much better passphrase',
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().errorKey).toBe('errors.wrongCurrentPassword');
      const missing = await call('POST', '/api/me/password', { newPassword: 'a much better passphrase' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().errorKey).toBe('errors.wrongCurrentPassword');
    });

    it('refuses a common or short password', async () => {
      const { call } = await member();
      const common = await call('POST', '/api/me/password', {
        currentPassword: TEST_PASSWORD,
        newPassword: 'password123',
      });
      expect(common.statusCode).toBe(400);
      expect(common.json().errorKey).toBe('errors.passwordTooCommon');
      const short = await call('POST', '/api/me/password', {
        currentPassword: TEST_PASSWORD,
        newPassword: 'short',
      });
      expect(short.statusCode).toBe(400);
      expect(short.json().error).toContain('body.newPassword');
    });

    it('sets a first password on a social-only account', async () => {
      const { user, call } = await member({ password: null, youtubeId: `yt-${unique()}` });
      const response = await call('POST', '/api/me/password', { newPassword: 'my first passphrase' });
      expect(response.statusCode).toBe(200);
      expect(response.json().user.has_password).toBe(true);
      expect(await verifyPassword((await rowOf(user.id))?.passwordHash ?? '', 'my first passphrase')).toBe(
        true,
      );
    });
  });

  describe('POST /me/disconnect', () => {
    it('refuses to remove the last way to sign in', async () => {
      const { user, call } = await member({ password: null, twitchId: `tw-${unique()}` });
      const response = await call('POST', '/api/me/disconnect', { platform: 'twitch' });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'Set a password before disconnecting your last linked account.',
        errorKey: 'errors.lastSignInMethod',
      });
      expect((await rowOf(user.id))?.twitchId).toBe(user.twitchId);
    });

    it('unlinks when another linked account remains; that identity’s loyalty stops counting', async () => {
      const { user, call, headers } = await member({
        password: null,
        twitchId: `tw-${unique()}`,
        discordId: `d-${unique()}`,
      });
      await db
        .insert(subscriptions)
        .values({ platform: 'twitch', platformUserId: user.twitchId as string, subscribedSince: new Date() });
      const ticketsNow = async () =>
        (await testApp.app.inject({ url: '/api/me/tickets', headers })).json().breakdown;
      expect(await ticketsNow()).toMatchObject({ linkedAccounts: 50, loyalty: 5 });
      const response = await call('POST', '/api/me/disconnect', { platform: 'twitch' });
      expect(response.statusCode).toBe(200);
      expect(response.json().user).toMatchObject({ twitch_id: null, discord_id: user.discordId });
      expect(await ticketsNow()).toMatchObject({ linkedAccounts: 25, loyalty: 0 });
    });

    it('unlinks the only linked account when there is a password; unknown platforms are refused', async () => {
      const { call } = await member({ discordId: `d-${unique()}` });
      const response = await call('POST', '/api/me/disconnect', { platform: 'discord' });
      expect(response.statusCode).toBe(200);
      expect(response.json().user.discord_id).toBeNull();
      expect((await call('POST', '/api/me/disconnect', { platform: 'myspace' })).statusCode).toBe(400);
    });
  });

  describe('the current password is no oracle for a stolen access token', () => {
    it('after 10 wrong current passwords in an hour the account answers 429, even to the right one; others are not affected', async () => {
      const { call } = await member();
      const attempts = [
        () =>
          call('POST', '/api/me/password', {
            currentPassword: 'guess',
            newPassword: 'a much better passphrase',
          }),
        () => call('PATCH', '/api/me/details', { username: 'guesser', currentPassword: 'guess' }),
        () => call('DELETE', '/api/me', { currentPassword: 'guess' }),
      ];
      for (let i = 0; i < 10; i++) {
        const wrong = await (attempts[i % attempts.length] as () => Promise<{ statusCode: number }>)();
        expect(wrong.statusCode).toBe(400);
      }
      const blocked = await call('POST', '/api/me/password', {
        currentPassword: TEST_PASSWORD,
        newPassword: 'a much better passphrase',
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().errorKey).toBe('errors.tooManyRequests');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect((await call('DELETE', '/api/me', { currentPassword: TEST_PASSWORD })).statusCode).toBe(429);

      const other = await member();
      const fine = await other.call('POST', '/api/me/password', {
        currentPassword: TEST_PASSWORD,
        newPassword: 'a much better passphrase',
      });
      expect(fine.statusCode).toBe(200);
    });

    it('is the service’s refusal, with when to try again, whoever calls it', async () => {
      const { user } = await member();
      const change = (currentPassword: string) =>
        testApp.app.account.changePassword(
          user,
          { currentPassword, newPassword: 'a much better passphrase' },
          undefined,
        );
      for (let i = 0; i < 10; i++) {
        await expect(change('guess')).rejects.toMatchObject({ errorKey: 'errors.wrongCurrentPassword' });
      }
      await expect(change(TEST_PASSWORD)).rejects.toMatchObject({
        kind: 'rate_limited',
        errorKey: 'errors.tooManyRequests',
        retryAfterSeconds: expect.any(Number),
      });
    });
  });

  describe('DELETE /me', () => {
    it('scrubs the account, removes what belongs to it and ends its sessions', async () => {
      const { user, call, headers } = await member({
        bio: 'about me',
        avatarUrl: 'https://cdn.example/me.png',
        twitchId: `tw-${unique()}`,
        youtubeId: `yt-${unique()}`,
        discordId: `d-${unique()}`,
      });
      const session = await buildSession(db, user);
      await db
        .insert(ticketLedger)
        .values({ userId: user.id, kind: 'adjustment', amount: 5, sourceId: unique() });
      const twitch = { platform: 'twitch', platformUserId: user.twitchId as string };
      await db.insert(ticketLedger).values({ ...twitch, kind: 'donation', amount: 5, sourceId: unique() });
      await db.insert(subscriptions).values({ ...twitch, subscribedSince: new Date() });
      await db.insert(loginHistory).values({ userId: user.id, ip: '203.0.113.9' });
      await db
        .insert(passwordResets)
        .values({ userId: user.id, tokenHash: unique(), expiresAt: new Date(Date.now() + 60_000) });
      const events: DomainEvents['user.sessions-revoked'][] = [];
      const off = testApp.app.events.on('user.sessions-revoked', (event) => events.push(event));

      const response = await call(
        'DELETE',
        '/api/me',
        { currentPassword: TEST_PASSWORD },
        { telerace_refresh: session.token },
      );
      off();
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ message: 'Your account was deleted.' });
      const cleared = [response.headers['set-cookie']].flat().find((c) => c?.startsWith('telerace_refresh='));
      expect(cleared).toMatch(/^telerace_refresh=;.*Path=\/api/);
      expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(events).toEqual([{ userId: user.id, reason: 'account_deleted' }]);

      const row = await rowOf(user.id);
      expect(row).toMatchObject({
        username: `Deleted driver#${user.id}`,
        email: null,
        passwordHash: null,
        bio: '',
        avatarUrl: null,
        youtubeId: null,
        twitchId: null,
        discordId: null,
        isAdmin: false,
      });
      expect(row?.deletedAt).toBeInstanceOf(Date);
      for (const table of [ticketLedger, loginHistory, passwordResets, refreshTokens]) {
        expect(await db.select().from(table).where(eq(table.userId, user.id))).toEqual([]);
      }
      // What Twitch said of the member's identity goes with the account.
      for (const table of [ticketLedger, subscriptions]) {
        expect(await db.select().from(table).where(eq(table.platformUserId, twitch.platformUserId))).toEqual(
          [],
        );
      }
      const after = await testApp.app.inject({ url: '/api/me', headers });
      expect(after.statusCode).toBe(401);
      expect(
        (
          await testApp.app.inject({
            method: 'DELETE',
            url: '/api/me',
            headers,
            payload: { currentPassword: TEST_PASSWORD },
          })
        ).statusCode,
      ).toBe(401);
    });

    it('asks for the current password: missing or wrong → 400, nothing deleted', async () => {
      const { user, call } = await member();
      for (const [payload, error] of [
        [{}, 'Current password is required'],
        [{ currentPassword: 'not my password' }, 'Current password is incorrect'],
      ] as const) {
        const response = await call('DELETE', '/api/me', payload);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ error, errorKey: 'errors.wrongCurrentPassword' });
      }
      // No body at all is refused too.
      expect((await call('DELETE', '/api/me')).statusCode).toBe(400);
      expect((await rowOf(user.id))?.deletedAt).toBeNull();
    });

    it('a password-less (social) account deletes only within 5 minutes of signing in', async () => {
      const { user } = await member({ password: null, twitchId: `tw-${unique()}` });
      const signedInAt = async (minutesAgo: number) => {
        const session = await buildSession(db, user);
        await db
          .update(refreshTokens)
          .set({ createdAt: new Date(Date.now() - minutesAgo * 60_000) })
          .where(eq(refreshTokens.familyId, session.familyId));
        // The access token is fresh (refreshed a moment ago); the session is what counts.
        const token = await tokenIssuedAgo(user.id, 1, session.familyId);
        return { authorization: `Bearer ${token}` };
      };
      const remove = async (headers: Record<string, string>) =>
        testApp.app.inject({ method: 'DELETE', url: '/api/me', headers, payload: {} });
      const stale = await remove(await signedInAt(6));
      expect(stale.statusCode).toBe(403);
      expect(stale.json()).toEqual({
        error: 'Please sign in again, then delete your account within 5 minutes.',
        errorKey: 'errors.recentSignInRequired',
      });
      // A token without a session (or of a session that is not the member's) proves nothing.
      const sessionless = await remove({ authorization: `Bearer ${await tokenIssuedAgo(user.id, 1)}` });
      expect(sessionless.statusCode).toBe(403);
      expect((await rowOf(user.id))?.deletedAt).toBeNull();
      const fresh = await remove(await signedInAt(4));
      expect(fresh.statusCode).toBe(200);
      expect((await rowOf(user.id))?.deletedAt).toBeInstanceOf(Date);
    });
  });
});
