/**
 * The member check answers from memory (user-cache.ts), and every change of a users row that an
 * answer or a check reads reaches the very next request. Real HTTP against a listening server;
 * each request here warms the cache first, so a stale row would be answered if an event were
 * missing.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import { buildAdmin, buildUser, TEST_PASSWORD, tokenFor } from '../../test/factories.js';
import { listen } from '../../test/sockets.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../auth/access-token.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
beforeAll(async () => {
  testApp = await startTestApp();
  base = `http://${await listen(testApp.app)}`;
});
afterAll(() => testApp.close());

async function call(token: string, method: string, path: string, body?: object) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const me = async (token: string) => call(token, 'GET', '/api/me');

/** An access token as the server signs them, issued `secondsAgo` seconds ago. */
function tokenIssuedAgo(user: Pick<UserRow, 'id'>, secondsAgo: number): Promise<string> {
  const iat = Math.floor(Date.now() / 1000) - secondsAgo;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(user.id))
    .setIssuedAt(iat)
    .setExpirationTime(iat + 600)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuer(TOKEN_ISSUER)
    .sign(new TextEncoder().encode(testApp.app.config.jwtSecret));
}

async function memberWithToken(admin = false) {
  const user = admin ? await buildAdmin(testApp.app.database.db) : await buildUser(testApp.app.database.db);
  return { user, token: await tokenFor(testApp.app, user) };
}

describe('user cache', () => {
  it('answers repeated member checks from memory', async () => {
    const { token } = await memberWithToken();
    const { stats } = testApp.app.userCache;
    const before = { ...stats };
    for (let i = 0; i < 20; i++) expect((await me(token)).status).toBe(200);
    expect(stats.misses - before.misses).toBe(1);
    expect(stats.hits - before.hits).toBe(19);
  });

  it('a ban refuses the very next request with the same token; an unban lets it back in', async () => {
    const admin = await memberWithToken(true);
    const driver = await memberWithToken();
    expect((await me(driver.token)).status).toBe(200);
    expect(
      (await call(admin.token, 'POST', `/api/admin/users/${driver.user.id}/ban`, { ban: true })).status,
    ).toBe(200);
    const refused = await me(driver.token);
    expect(refused.status).toBe(401);
    expect(refused.body.errorKey).toBe('errors.banned');
    expect(
      (await call(admin.token, 'POST', `/api/admin/users/${driver.user.id}/ban`, { ban: false })).status,
    ).toBe(200);
    expect((await me(driver.token)).status).toBe(200);
  });

  it('a demoted admin’s next admin call is 403', async () => {
    const demoter = await memberWithToken(true);
    const admin = await memberWithToken(true);
    expect((await call(admin.token, 'GET', '/api/admin/users')).status).toBe(200);
    expect((await call(admin.token, 'GET', '/api/me')).body.user).toMatchObject({ is_admin: true });
    const demoted = await call(demoter.token, 'POST', `/api/admin/users/${admin.user.id}/toggle-admin`, {
      makeAdmin: false,
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect((await call(admin.token, 'GET', '/api/admin/users')).status).toBe(403);
    expect((await me(admin.token)).body.user).toMatchObject({ is_admin: false });
  });

  it('a password change refuses the tokens issued before it', async () => {
    const { user } = await memberWithToken();
    const oldToken = await tokenIssuedAgo(user, 5);
    expect((await me(oldToken)).status).toBe(200);
    const changed = await call(oldToken, 'POST', '/api/me/password', {
      currentPassword: TEST_PASSWORD,
      newPassword: 'a much better passphrase',
    });
    expect(changed.status).toBe(200);
    expect((await me(oldToken)).status).toBe(401);
  });

  it('a deletion by an admin refuses the next request', async () => {
    const admin = await memberWithToken(true);
    const driver = await memberWithToken();
    expect((await me(driver.token)).status).toBe(200);
    expect((await call(admin.token, 'DELETE', `/api/admin/users/${driver.user.id}`)).status).toBe(200);
    expect((await me(driver.token)).status).toBe(401);
  });

  it('PATCH /me, the theme and the details show in the next GET /me', async () => {
    const { token } = await memberWithToken();
    expect((await me(token)).status).toBe(200);
    expect((await call(token, 'PATCH', '/api/me', { bio: 'fresh bio', avatar_url: '' })).status).toBe(200);
    expect((await me(token)).body.user).toMatchObject({ bio: 'fresh bio' });
    expect((await call(token, 'PATCH', '/api/me/theme', { preferred_theme: 'light' })).status).toBe(200);
    expect((await me(token)).body.user).toMatchObject({ preferred_theme: 'light' });
    const renamed = await call(token, 'PATCH', '/api/me/details', {
      username: 'FreshName',
      currentPassword: TEST_PASSWORD,
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await me(token)).body.user).toMatchObject({ username: 'FreshName' });
  });

  it('keeps at most maxRows rows, the least recently used going first', async () => {
    const { UserCache } = await import('./user-cache.js');
    const cache = new UserCache({ db: testApp.app.database.db, maxRows: 2 });
    const [a, b, c] = [
      await buildUser(testApp.app.database.db),
      await buildUser(testApp.app.database.db),
      await buildUser(testApp.app.database.db),
    ];
    if (!a || !b || !c) throw new Error('no users');
    await cache.find(a.id);
    await cache.find(b.id);
    await cache.find(a.id); // a is now the most recent
    await cache.find(c.id); // b goes
    expect(cache.size).toBe(2);
    const misses = cache.stats.misses;
    await cache.find(a.id);
    await cache.find(c.id);
    expect(cache.stats.misses).toBe(misses);
    await cache.find(b.id);
    expect(cache.stats.misses).toBe(misses + 1);
  });
});
