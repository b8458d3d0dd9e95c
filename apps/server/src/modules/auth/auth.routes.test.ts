import { createHash } from 'node:crypto';
import { ERROR_KEYS, SESSION_HINT_COOKIE } from '@telerace/protocol';
import { eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsync } from 'fastify';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginHistory, refreshTokens, users } from '../../db/schema.js';
import type { DomainEvents } from '../../events.js';
import { startTestApp } from '../../test/app.js';
import { login, newAccount, refresh, refreshCookieOf, signup, type TestAccount } from '../../test/auth.js';
import { ManualClock } from '../../test/clock.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from './access-token.js';
import { REFRESH_COOKIE } from './auth.routes.js';

type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** A probe for members (`access: 'member'`). */
const whoamiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/test/whoami', { config: { access: 'member' } }, async (request) => ({
    id: request.currentUser.id,
  }));
};

const whoami = (t: TestApp, token: string) =>
  t.app.inject({ url: '/api/test/whoami', headers: { authorization: `Bearer ${token}` } });

async function userByEmail(t: TestApp, email: string) {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.email, email));
  if (!row) throw new Error(`no user ${email}`);
  return row;
}

/** The server's clock: sessions and tokens run on it; a test moves it instead of waiting. */
const clock = new ManualClock();
const nowMs = () => clock.now().getTime();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { apiPlugins: [whoamiRoutes], clock });
});
afterAll(() => t.close());

describe('the whole path: sign-up → login → refresh → logout', () => {
  it('works end to end and the logs never carry a credential', async () => {
    const created: DomainEvents['user.created'][] = [];
    const off = t.app.events.on('user.created', (event) => created.push(event));
    const account = await signup(t.app);
    off();
    const user = await userByEmail(t, account.email);
    expect(created).toEqual([{ userId: user.id, username: user.username }]);
    expect(user.termsAcceptedAt).not.toBeNull();
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    const session = await login(t.app, account);
    expect((await whoami(t, session.accessToken)).json()).toEqual({ id: user.id });

    const refreshed = await refresh(t.app, session.refreshToken);
    expect(refreshed.statusCode).toBe(200);
    const next = refreshCookieOf(refreshed)?.value ?? '';
    expect(next).not.toBe(session.refreshToken);
    const accessToken = refreshed.json().accessToken as string;
    expect((await whoami(t, accessToken)).statusCode).toBe(200);

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: next },
    });
    expect(logout.statusCode).toBe(200);
    expect(logout.json()).toEqual({ message: 'Logged out', recorded: true });
    const cleared = refreshCookieOf(logout);
    expect(cleared?.value).toBe('');
    expect(cleared?.path).toBe('/api');
    expect((await refresh(t.app, next)).statusCode).toBe(401);

    const log = t.logText();
    for (const secret of [account.password, session.refreshToken, next, session.accessToken, accessToken]) {
      expect(log).not.toContain(secret);
    }
  });

  it('logout without a cookie still answers 200', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/logout' });
    expect(response.statusCode).toBe(200);
  });
});

describe('sign-up', () => {
  const postSignup = (payload: TestAccount) => t.app.inject({ method: 'POST', url: '/api/signup', payload });

  it('refuses a taken e-mail or username, case-insensitively, with 409', async () => {
    const account = await signup(t.app);
    for (const payload of [
      newAccount({ email: account.email.toUpperCase() }),
      newAccount({ username: account.username.toUpperCase() }),
    ]) {
      const response = await postSignup(payload);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'Email or username already in use',
        errorKey: ERROR_KEYS.emailOrUsernameInUse,
      });
    }
  });

  it('signs the new member in with the session a log-in gives (issue 41 point 7)', async () => {
    const account = newAccount();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/signup',
      payload: account,
      remoteAddress: '10.0.7.7',
    });
    expect(response.statusCode).toBe(201);
    const { accessToken } = response.json() as { accessToken: string };
    const user = await userByEmail(t, account.email);
    expect((await whoami(t, accessToken)).json()).toEqual({ id: user.id });
    // The same refresh cookie as a log-in: it renews the session.
    const cookie = refreshCookieOf(response);
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api', sameSite: 'Strict' });
    expect(cookie?.maxAge).toBe(refreshCookieOf((await login(t.app, account)).response)?.maxAge);
    expect((await refresh(t.app, cookie?.value ?? '')).statusCode).toBe(200);
    // It counts as the member's first log-in.
    expect(user.lastLoginAt).not.toBeNull();
  });

  it('refuses a common password and a too short one', async () => {
    const common = await postSignup(newAccount({ password: 'Password' }));
    expect(common.statusCode).toBe(400);
    expect(common.json().errorKey).toBe(ERROR_KEYS.passwordTooCommon);
    const short = await postSignup(newAccount({ password: 'x7!' }));
    expect(short.statusCode).toBe(400);
    expect(short.json().errorKey).toBe(ERROR_KEYS.validation);
  });

  it('is limited to 10 per hour per IP', async () => {
    const attempt = () =>
      t.app.inject({ method: 'POST', url: '/api/signup', payload: newAccount(), remoteAddress: '10.0.9.9' });
    for (let i = 0; i < 10; i++) {
      const accepted = await attempt();
      expect(accepted.statusCode).toBe(201);
      // The budget is told only once it is spent (below), not on every answer.
      expect(accepted.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    const blocked = await attempt();
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().errorKey).toBe(ERROR_KEYS.tooManyRequests);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('refuses a username with # (the suffix is the server’s)', async () => {
    const response = await postSignup(newAccount({ username: 'a#1' }));
    expect(response.statusCode).toBe(400);
  });
});

describe('login', () => {
  it('sets the session hint beside the refresh cookie (readable, no secret, same life) and clears both', async () => {
    const hintOf = (response: {
      cookies: { name: string; value: string; maxAge?: number; path?: string; httpOnly?: boolean }[];
    }) => response.cookies.find((c) => c.name === SESSION_HINT_COOKIE);
    const { response } = await login(t.app, await signup(t.app));
    const hint = hintOf(response);
    expect(hint).toMatchObject({ value: '1', path: '/' });
    expect(hint?.httpOnly).toBeFalsy();
    expect(hint?.maxAge).toBe(refreshCookieOf(response)?.maxAge);

    const logout = await t.app.inject({ method: 'POST', url: '/api/logout' });
    expect(hintOf(logout)?.value).toBe('');
    const failed = await refresh(t.app, 'not a token');
    expect(failed.statusCode).toBe(401);
    expect(hintOf(failed)?.value).toBe('');
  });

  it('sets the refresh cookie HttpOnly, SameSite=Strict, Path=/api, not Secure on http, ≤ 30 days', async () => {
    const { response, refreshToken } = await login(t.app, await signup(t.app));
    const header = String(response.headers['set-cookie']);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Strict');
    expect(header).toContain('Path=/api');
    expect(header).not.toContain('Secure');
    const cookie = refreshCookieOf(response);
    expect(cookie?.maxAge).toBeGreaterThan(30 * 86_400 - 60);
    expect(cookie?.maxAge).toBeLessThanOrEqual(30 * 86_400);
    // 256 random bits, base64url.
    expect(refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(refreshToken, 'base64url')).toHaveLength(32);
  });

  it('stores the refresh token hashed only', async () => {
    const account = await signup(t.app);
    const { refreshToken } = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    const rows = await t.app.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, user.id));
    // The sign-up's session and the log-in's.
    expect(rows).toHaveLength(2);
    const row = rows.find((r) => r.tokenHash === createHash('sha256').update(refreshToken).digest('hex'));
    expect(row).toBeDefined();
    const dump = JSON.stringify(await t.app.database.db.execute(sql`select * from refresh_tokens`));
    expect(dump).not.toContain(refreshToken);
    const ttl = (row?.expiresAt.getTime() ?? 0) - nowMs();
    expect(ttl).toBeLessThanOrEqual(30 * 86_400_000);
    expect(ttl).toBeGreaterThan(30 * 86_400_000 - 60_000);
  });

  it('issues an HS256 access token with sub, iat, exp, aud, iss and a lifetime ≤ 15 min', async () => {
    const account = await signup(t.app);
    const { accessToken } = await login(t.app, account);
    const claims = decodeJwt(accessToken);
    const user = await userByEmail(t, account.email);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.aud).toBe(TOKEN_AUDIENCE);
    expect(claims.iss).toBe(TOKEN_ISSUER);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBeLessThanOrEqual(900);
    expect(JSON.parse(Buffer.from(accessToken.split('.')[0] ?? '', 'base64url').toString()).alg).toBe(
      'HS256',
    );
  });

  it('the member check refuses alg=none and RS256 tokens with the same claims', async () => {
    const account = await signup(t.app);
    const { accessToken } = await login(t.app, account);
    const claims = decodeJwt(accessToken);
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    expect((await whoami(t, none)).statusCode).toBe(401);

    const { privateKey } = await generateKeyPair('RS256');
    const rs = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(privateKey);
    expect((await whoami(t, rs)).statusCode).toBe(401);
    expect((await whoami(t, accessToken)).statusCode).toBe(200);
  });

  it('records a login-history row and last_login_at', async () => {
    const account = await signup(t.app);
    clock.advance(60_000);
    await login(t.app, account, { 'x-forwarded-for': '203.0.113.9' });
    const after = await userByEmail(t, account.email);
    expect(after.lastLoginAt?.getTime()).toBe(nowMs());
    const rows = await t.app.database.db.select().from(loginHistory).where(eq(loginHistory.userId, after.id));
    // The sign-up signed in from its own address first; TRUST_PROXY is off: X-Forwarded-For is ignored.
    expect(rows.map((r) => r.ip).sort()).toEqual([expect.stringMatching(/^10\.200\./), '127.0.0.1']);
  });

  it('answers wrong password, unknown e-mail and social-only accounts the same way, in similar time', async () => {
    const account = await signup(t.app);
    const [socialOnly] = await t.app.database.db
      .insert(users)
      .values({ username: newAccount().username, email: newAccount().email, termsAcceptedAt: new Date() })
      .returning();
    const attempt = async (email: string, remoteAddress: string) => {
      const started = performance.now();
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email, password: 'not the password at all' },
        remoteAddress,
      });
      return { response, ms: performance.now() - started };
    };
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 8; i++) {
      // An address per round: an (account, address) pair is slowed after 5 failures.
      const a = await attempt(account.email, `10.9.${i}.1`);
      const b = await attempt(`nobody-${i}@example.com`, `10.9.${i}.2`);
      const c = await attempt(socialOnly?.email ?? '', `10.9.${i}.3`);
      for (const { response } of [a, b, c]) {
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({
          error: 'Invalid credentials',
          errorKey: ERROR_KEYS.invalidCredentials,
        });
        expect(refreshCookieOf(response)).toBeUndefined();
      }
      wrong.push(a.ms);
      unknown.push(b.ms);
    }
    // Both verify one argon2 hash; a missing verification would make "unknown" far faster. The
    // fastest of each is compared: on a busy machine any single attempt may wait for the CPU.
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) / 3);
  });

  const attemptLogin = (email: string, password: string, remoteAddress: string) =>
    t.app.inject({ method: 'POST', url: '/api/login', payload: { email, password }, remoteAddress });

  it('slows an (account, IP) after 5 failures: 429 with Retry-After 1 s, then 2 s', async () => {
    const victim = await signup(t.app);
    const remoteAddress = '10.0.2.1';
    for (let i = 0; i < 5; i++) {
      expect((await attemptLogin(victim.email, 'wrong password here', remoteAddress)).statusCode).toBe(401);
    }
    const blocked = await attemptLogin(victim.email, 'wrong password here', remoteAddress);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({
      error: 'Too many login attempts. Try again in 1 second.',
      errorKey: ERROR_KEYS.tooManyLoginAttempts,
    });
    expect(blocked.headers['retry-after']).toBe('1');
    // Even the right password waits from that IP (that is what stops guessing)…
    expect((await attemptLogin(victim.email, victim.password, remoteAddress)).statusCode).toBe(429);
    // The throttle's time is the limiter library's (wall time), not the app's clock: a caller who
    // waits the Retry-After gets through.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await attemptLogin(victim.email, 'wrong password here', remoteAddress)).statusCode).toBe(401);
    const longer = await attemptLogin(victim.email, 'wrong password here', remoteAddress);
    expect(longer.statusCode).toBe(429);
    expect(longer.headers['retry-after']).toBe('2');
  });

  it('another IP’s failures never lock the owner out: the right password from a fresh IP logs in after 12 failures elsewhere', async () => {
    const admin = await signup(t.app);
    const other = await signup(t.app);
    for (let i = 0; i < 12; i++) {
      const response = await attemptLogin(admin.email, `guess number ${i}`, '10.0.2.66');
      expect([401, 429]).toContain(response.statusCode);
    }
    expect((await attemptLogin(admin.email, admin.password, '10.0.2.66')).statusCode).toBe(429);
    expect((await attemptLogin(admin.email, admin.password, '10.0.2.77')).statusCode).toBe(200);
    // …and the guessing IP can still log in to another account (under its own IP limit).
    expect((await attemptLogin(other.email, other.password, '10.0.2.66')).statusCode).toBe(200);
  });

  it('limits failed logins per IP across accounts (30)', async () => {
    const remoteAddress = '10.0.3.1';
    for (let i = 0; i < 30; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: `spray-${i}@example.com`, password: 'guess guess' },
        remoteAddress,
      });
      expect(response.statusCode).toBe(401);
    }
    const account = await signup(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email: account.email, password: account.password },
      remoteAddress,
    });
    expect(response.statusCode).toBe(429);
    // From another address the account is fine.
    await login(t.app, account);
  });
});

describe('refresh-token', () => {
  it('rotates; a token replayed within 10 s still works (tabs), after 10 s revokes the family', async () => {
    const { refreshToken: first } = await login(t.app, await signup(t.app));
    const a = await refresh(t.app, first);
    expect(a.statusCode).toBe(200);
    const second = refreshCookieOf(a)?.value ?? '';
    // Within the grace window: another tab with the same cookie.
    const b = await refresh(t.app, first);
    expect(b.statusCode).toBe(200);

    // 11 s after the first use of `first`: a replay is theft.
    clock.advance(11_000);
    const replay = await refresh(t.app, first);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().errorKey).toBe(ERROR_KEYS.sessionExpired);
    // The whole family is gone, including the tokens handed out since.
    expect((await refresh(t.app, second)).statusCode).toBe(401);
    expect((await refresh(t.app, refreshCookieOf(b)?.value)).statusCode).toBe(401);
  });

  it('10 concurrent refreshes with the same cookie all succeed with the same successor and the session lives on', async () => {
    const { refreshToken } = await login(t.app, await signup(t.app));
    const responses = await Promise.all(Array.from({ length: 10 }, () => refresh(t.app, refreshToken)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    const tokens = responses.map((r) => refreshCookieOf(r)?.value ?? '');
    expect(new Set(tokens).size).toBe(1);
    expect((await refresh(t.app, tokens[0])).statusCode).toBe(200);
  });

  it('a replay within the grace window gets the successor already issued: the family never forks', async () => {
    const { refreshToken } = await login(t.app, await signup(t.app));
    const first = await refresh(t.app, refreshToken);
    const replay = await refresh(t.app, refreshToken);
    expect(first.statusCode).toBe(200);
    expect(replay.statusCode).toBe(200);
    const successor = refreshCookieOf(first)?.value;
    expect(successor).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(refreshCookieOf(replay)?.value).toBe(successor);
    for (const response of [first, replay]) {
      const header = String(response.headers['set-cookie']);
      for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/api'])
        expect(header).toContain(attribute);
    }
    // Each answer still carries a working access token.
    expect((await whoami(t, first.json().accessToken)).statusCode).toBe(200);
    expect((await whoami(t, replay.json().accessToken)).statusCode).toBe(200);
    const [row] = await t.app.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, createHash('sha256').update(refreshToken).digest('hex')));
    const family = await t.app.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.familyId, row?.familyId ?? ''));
    const live = family.filter((r) => r.usedAt === null && r.revokedAt === null);
    expect(family).toHaveLength(2);
    expect(live).toHaveLength(1);
    expect(live[0]?.tokenHash).toBe(
      createHash('sha256')
        .update(successor ?? '')
        .digest('hex'),
    );
  });

  it('refuses no cookie, an unknown token and an expired session, clearing the cookie', async () => {
    for (const response of [await refresh(t.app), await refresh(t.app, 'A'.repeat(43))]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: 'Your session has expired. Please log in again.',
        errorKey: ERROR_KEYS.sessionExpired,
      });
      expect(refreshCookieOf(response)?.value).toBe('');
    }
    const account = await signup(t.app);
    const { refreshToken } = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    await t.app.database.db
      .update(refreshTokens)
      .set({ expiresAt: new Date(nowMs() - 1000) })
      .where(eq(refreshTokens.userId, user.id));
    expect((await refresh(t.app, refreshToken)).statusCode).toBe(401);
  });
});

describe('access tokens', () => {
  /** A token signed with the server's key, with claims chosen by the test. */
  const forge = (claims: { sub: string; iat?: number; exp?: number; sid?: string }) => {
    const now = Math.floor(nowMs() / 1000);
    return new SignJWT(claims.sid ? { sid: claims.sid } : {})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 60)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuer(TOKEN_ISSUER)
      .sign(new TextEncoder().encode(t.config.jwtSecret));
  };

  it('carry the session (refresh-token family) they belong to, through refreshes too', async () => {
    const account = await signup(t.app);
    const session = await login(t.app, account);
    const [row] = await t.app.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, createHash('sha256').update(session.refreshToken).digest('hex')));
    expect(decodeJwt(session.accessToken).sid).toBe(row?.familyId);
    const refreshed = await refresh(t.app, session.refreshToken);
    expect(decodeJwt(refreshed.json().accessToken).sid).toBe(row?.familyId);
  });

  it('are refused with another audience, another issuer, another key, or once expired', async () => {
    const user = await userByEmail(t, (await signup(t.app)).email);
    const now = Math.floor(nowMs() / 1000);
    const sign = (aud: string, iss: string, secret = t.config.jwtSecret, exp = now + 60) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(user.id))
        .setIssuedAt(now - 1)
        .setExpirationTime(exp)
        .setAudience(aud)
        .setIssuer(iss)
        .sign(new TextEncoder().encode(secret));
    expect((await whoami(t, await sign(TOKEN_AUDIENCE, TOKEN_ISSUER))).statusCode).toBe(200);
    for (const token of [
      await sign('someone-else', TOKEN_ISSUER),
      await sign(TOKEN_AUDIENCE, 'someone-else'),
      await sign(TOKEN_AUDIENCE, TOKEN_ISSUER, 'not the server secret at all, but long enough'),
      await sign(TOKEN_AUDIENCE, TOKEN_ISSUER, t.config.jwtSecret, now - 1),
    ]) {
      expect((await whoami(t, token)).statusCode).toBe(401);
    }
  });

  it('are refused when `sub` is not plain digits', async () => {
    const user = await userByEmail(t, (await signup(t.app)).email);
    expect((await whoami(t, await forge({ sub: String(user.id) }))).statusCode).toBe(200);
    for (const sub of [`${user.id}.0`, ` ${user.id}`, `${user.id} `, '1e3', '0x1', `0${user.id}`, '-1', '']) {
      const response = await whoami(t, await forge({ sub }));
      expect(response.statusCode, `sub ${JSON.stringify(sub)}`).toBe(401);
    }
  });

  it('are refused when `iat` is older than the token lifetime, even with a later `exp`', async () => {
    const user = await userByEmail(t, (await signup(t.app)).email);
    const now = Math.floor(nowMs() / 1000);
    const ttl = t.config.accessTokenTtlSeconds;
    expect((await whoami(t, await forge({ sub: String(user.id), iat: now - ttl + 30 }))).statusCode).toBe(
      200,
    );
    const old = await forge({ sub: String(user.id), iat: now - ttl - 60, exp: now + 600 });
    expect((await whoami(t, old)).statusCode).toBe(401);
    const future = await forge({ sub: String(user.id), iat: now + 120, exp: now + 600 });
    expect((await whoami(t, future)).statusCode).toBe(401);
  });
});

describe('session revocation events', () => {
  it('logout emits session.revoked with the session id', async () => {
    const account = await signup(t.app);
    const session = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    const events: DomainEvents['session.revoked'][] = [];
    const off = t.app.events.on('session.revoked', (event) => events.push(event));
    await t.app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: session.refreshToken },
    });
    off();
    expect(events).toEqual([{ userId: user.id, sessionId: decodeJwt(session.accessToken).sid }]);
  });

  it('a refresh-token replay after the grace window emits session.revoked for that family', async () => {
    const account = await signup(t.app);
    const session = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    expect((await refresh(t.app, session.refreshToken)).statusCode).toBe(200);
    clock.advance(11_000);
    const events: DomainEvents['session.revoked'][] = [];
    const off = t.app.events.on('session.revoked', (event) => events.push(event));
    expect((await refresh(t.app, session.refreshToken)).statusCode).toBe(401);
    off();
    expect(events).toEqual([{ userId: user.id, sessionId: decodeJwt(session.accessToken).sid }]);
  });
});

describe('bans', () => {
  it('a banned user can neither log in nor refresh, and the session is revoked', async () => {
    const account = await signup(t.app);
    const { refreshToken, accessToken } = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    await t.app.database.db.update(users).set({ isBanned: true }).where(eq(users.id, user.id));

    const refused = await refresh(t.app, refreshToken);
    expect(refused.statusCode).toBe(401);
    const rows = await t.app.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, user.id));
    const hash = createHash('sha256').update(refreshToken).digest('hex');
    const family = rows.find((r) => r.tokenHash === hash)?.familyId;
    expect(rows.filter((r) => r.familyId === family).every((r) => r.revokedAt !== null)).toBe(true);
    expect((await whoami(t, accessToken)).statusCode).toBe(401);

    const loginResponse = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email: account.email, password: account.password },
    });
    expect(loginResponse.statusCode).toBe(403);
    expect(loginResponse.json().errorKey).toBe(ERROR_KEYS.banned);
    expect(refreshCookieOf(loginResponse)).toBeUndefined();
  });

  it('a banned account answers like a wrong password until the password is right, and its failures still count', async () => {
    const account = await signup(t.app);
    const user = await userByEmail(t, account.email);
    await t.app.database.db.update(users).set({ isBanned: true }).where(eq(users.id, user.id));
    const attempt = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: account.email, password },
        remoteAddress: '10.0.5.1',
      });
    for (let i = 0; i < 4; i++) {
      const wrong = await attempt('not the password');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ error: 'Invalid credentials', errorKey: ERROR_KEYS.invalidCredentials });
    }
    expect((await attempt(account.password)).statusCode).toBe(403);
    // The right password did not clear the count: the 5th failure starts the delays.
    expect((await attempt('not the password')).statusCode).toBe(401);
    expect((await attempt(account.password)).statusCode).toBe(429);
  });
});

describe('complete-registration', () => {
  it('requires a session and records the terms once', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/complete-registration' })).statusCode).toBe(
      401,
    );
    const account = await signup(t.app);
    const { accessToken } = await login(t.app, account);
    const user = await userByEmail(t, account.email);
    await t.app.database.db.update(users).set({ termsAcceptedAt: null }).where(eq(users.id, user.id));
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/complete-registration',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().user).toMatchObject({
      id: user.id,
      registration_complete: true,
      has_password: true,
    });
    expect((await userByEmail(t, account.email)).termsAcceptedAt).not.toBeNull();
  });
});

describe('behind a proxy and on https', () => {
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await startTestApp({ TRUST_PROXY: '1', PUBLIC_URL: 'https://telerace.example' });
  });
  afterAll(() => proxied.close());

  it('takes the client IP from X-Forwarded-For and marks the cookie Secure', async () => {
    const account = await signup(proxied.app);
    const { response } = await login(proxied.app, account, { 'x-forwarded-for': '203.0.113.9' });
    expect(String(response.headers['set-cookie'])).toContain('Secure');
    const [user] = await proxied.app.database.db.select().from(users).where(eq(users.email, account.email));
    const rows = await proxied.app.database.db
      .select()
      .from(loginHistory)
      .where(eq(loginHistory.userId, user?.id ?? 0));
    // The sign-up's own log-in came without the header (test/auth.ts gives it an address of its own).
    expect(rows.map((r) => r.ip).sort()).toEqual([expect.stringMatching(/^10\.200\./), '203.0.113.9']);
  });

  it('counts failed logins per client IP behind the proxy: a client that never failed logs in', async () => {
    const account = await signup(proxied.app);
    const attempt = (password: string, client: string) =>
      proxied.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: account.email, password },
        headers: { 'x-forwarded-for': client },
      });
    for (let i = 0; i < 5; i++)
      expect((await attempt('wrong password', '198.51.100.1')).statusCode).toBe(401);
    expect((await attempt(account.password, '198.51.100.1')).statusCode).toBe(429);
    expect((await attempt(account.password, '198.51.100.2')).statusCode).toBe(200);
  });
});
