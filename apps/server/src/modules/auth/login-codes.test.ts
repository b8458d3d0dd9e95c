/**
 * Login CSRF through /auth/callback, through real HTTP with one cookie jar per "browser". A
 * test-only provider (apiPlugins) plays the social round trip: /start begins the flow (nonce
 * cookie), /callback issues a code for a member to the browser that started it and redirects to
 * /auth/callback?token=<code>…, which the page then exchanges at POST /api/auth/exchange.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginCodes, loginHistory } from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import { ManualClock } from '../../test/clock.js';
import { buildUser } from '../../test/factories.js';
import { listen } from '../../test/sockets.js';
import { REFRESH_COOKIE } from './auth.routes.js';
import { LOGIN_CODE_TTL_SECONDS, SIGN_IN_FLOW_COOKIE } from './login-codes.js';

/** What a social provider's routes (issue 13) do with the login-code API. */
const fakeProvider: FastifyPluginAsync = async (app) => {
  app.get('/test/provider/start', async (request, reply) => {
    app.loginCodes.startSignInFlow(reply);
    const { user } = request.query as { user: string };
    return reply.redirect(`/api/test/provider/callback?user=${user}`);
  });
  app.get('/test/provider/callback', async (request, reply) => {
    const nonce = app.loginCodes.flowNonce(request);
    if (nonce === null) return reply.redirect('/login?error=auth_failed');
    const code = await app.loginCodes.issueLoginCode(Number((request.query as { user: string }).user), nonce);
    return reply.redirect(`/auth/callback?token=${code}&destination=%2Fcar-selection`);
  });
};

/** A browser: its own cookies, sent back on /api paths as a browser would. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly setCookieHeaders: string[] = [];

  constructor(readonly base: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const header of response.headers.getSetCookie()) {
      this.setCookieHeaders.push(header);
      const [pair = ''] = header.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows the provider round trip; returns the code /auth/callback received. */
  async signInWithProvider(user: UserRow): Promise<string> {
    const start = await this.fetch(`/api/test/provider/start?user=${user.id}`);
    expect(start.status).toBe(302);
    const callback = await this.fetch(start.headers.get('location') ?? '');
    expect(callback.status).toBe(302);
    const location = new URL(callback.headers.get('location') ?? '', this.base);
    expect(location.pathname).toBe('/auth/callback');
    expect(location.searchParams.get('destination')).toBe('/car-selection');
    return location.searchParams.get('token') ?? '';
  }

  exchange(code: string): Promise<Response> {
    return this.fetch('/api/auth/exchange', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
  }
}

let t: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
/** Codes expire by this clock: a test moves it instead of rewriting rows. */
const clock = new ManualClock();
beforeAll(async () => {
  // Debug: request lines (with their addresses) are logged only then, and must stay redacted.
  t = await startTestApp({ LOG_LEVEL: 'debug' }, { apiPlugins: [fakeProvider], clock });
  base = `http://${await listen(t.app)}`;
});
afterAll(() => t.close());

const INVALID = {
  error:
    'This sign-in link is invalid, was already used or comes from another browser. Please sign in again.',
  errorKey: ERROR_KEYS.loginCodeInvalid,
};

async function me(accessToken: string): Promise<{ id: number }> {
  const response = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { user: { id: number } }).user;
}

describe('the sign-in flow', () => {
  it('sets an httpOnly, SameSite=Lax nonce cookie on /api for 10 minutes', async () => {
    const browser = new Browser(base);
    await browser.fetch('/api/test/provider/start?user=1');
    const header = browser.setCookieHeaders.find((h) => h.startsWith(`${SIGN_IN_FLOW_COOKIE}=`)) ?? '';
    expect(header).toMatch(/HttpOnly/i);
    expect(header).toMatch(/SameSite=Lax/i);
    expect(header).toMatch(/Path=\/api(;|$)/);
    expect(header).toMatch(/Max-Age=600/);
    expect(browser.cookies.get(SIGN_IN_FLOW_COOKIE)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('the browser that started it exchanges the code for a session, like /api/login', async () => {
    const member = await buildUser(t.app.database.db);
    const browser = new Browser(base);
    const code = await browser.signInWithProvider(member);
    const exchanged = await browser.exchange(code);
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    const { accessToken } = (await exchanged.json()) as { accessToken: string };
    expect((await me(accessToken)).id).toBe(member.id);
    // A normal session: the refresh cookie, renewable; the flow's nonce is gone.
    const refreshHeader = browser.setCookieHeaders.find((h) => h.startsWith(`${REFRESH_COOKIE}=`)) ?? '';
    expect(refreshHeader).toMatch(/HttpOnly/i);
    expect(refreshHeader).toMatch(/SameSite=Strict/i);
    expect(browser.cookies.has(SIGN_IN_FLOW_COOKIE)).toBe(false);
    expect((await browser.fetch('/api/refresh-token', { method: 'POST' })).status).toBe(200);
    const history = await t.app.database.db
      .select()
      .from(loginHistory)
      .where(eq(loginHistory.userId, member.id));
    expect(history.map((row) => row.ip)).toEqual(['127.0.0.1']);
  });

  it('stores only hashes of the code and of the nonce', async () => {
    const member = await buildUser(t.app.database.db);
    const browser = new Browser(base);
    const code = await browser.signInWithProvider(member);
    const rows = await t.app.database.db.select().from(loginCodes).where(eq(loginCodes.userId, member.id));
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(browser.cookies.get(SIGN_IN_FLOW_COOKIE));
    const lifetime = (rows[0]?.expiresAt.getTime() ?? 0) - (rows[0]?.createdAt.getTime() ?? 0);
    expect(lifetime).toBe(60_000);
  });
});

describe('refused codes (login CSRF)', () => {
  it("a code issued to browser A is refused in browser B, with or without a flow of B's own", async () => {
    const attacker = await buildUser(t.app.database.db);
    const attackerBrowser = new Browser(base);
    const code = await attackerBrowser.signInWithProvider(attacker);

    const victim = new Browser(base);
    const refused = await victim.exchange(code);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(INVALID);
    expect(victim.cookies.has(REFRESH_COOKIE)).toBe(false);

    // The victim has a sign-in of their own under way: another nonce, still refused.
    const someone = await buildUser(t.app.database.db);
    await victim.signInWithProvider(someone);
    expect((await victim.exchange(code)).status).toBe(400);
    expect(victim.cookies.has(REFRESH_COOKIE)).toBe(false);

    // It was never the victim's to spend: the browser that started the flow still can.
    expect((await attackerBrowser.exchange(code)).status).toBe(200);
  });

  it('a code works once, even when two exchanges race', async () => {
    const member = await buildUser(t.app.database.db);
    const browser = new Browser(base);
    const code = await browser.signInWithProvider(member);
    const nonce = browser.cookies.get(SIGN_IN_FLOW_COOKIE) ?? '';
    const post = () =>
      fetch(`${base}/api/auth/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `${SIGN_IN_FLOW_COOKIE}=${nonce}` },
        body: JSON.stringify({ code }),
      });
    const statuses = (await Promise.all([post(), post(), post()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400]);
    expect((await post()).status).toBe(400);
  });

  it('a code works for 60 s, then is refused', async () => {
    const member = await buildUser(t.app.database.db);
    const early = new Browser(base);
    const late = new Browser(base);
    const earlyCode = await early.signInWithProvider(member);
    const lateCode = await late.signInWithProvider(member);
    clock.advance(LOGIN_CODE_TTL_SECONDS * 1000 - 1000);
    expect((await early.exchange(earlyCode)).status).toBe(200);
    clock.advance(2000);
    const refused = await late.exchange(lateCode);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(INVALID);
  });

  it('a banned member gets the ban; a deleted one a refused code', async () => {
    const banned = await buildUser(t.app.database.db, { isBanned: true });
    const browser = new Browser(base);
    const answer = await browser.exchange(await browser.signInWithProvider(banned));
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { errorKey: string }).errorKey).toBe(ERROR_KEYS.banned);

    const gone = await buildUser(t.app.database.db, { deletedAt: new Date() });
    expect((await browser.exchange(await browser.signInWithProvider(gone))).status).toBe(400);
  });

  it('a malformed or unknown code is refused the same way', async () => {
    const browser = new Browser(base);
    await browser.fetch('/api/test/provider/start?user=1');
    for (const code of ['x', 'A'.repeat(43), 'not a code at all!']) {
      const answer = await browser.exchange(code);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual(INVALID);
    }
    expect((await browser.exchange('')).status).toBe(400);
  });

  it('never writes a code or a nonce to the log', async () => {
    const member = await buildUser(t.app.database.db);
    const browser = new Browser(base);
    const code = await browser.signInWithProvider(member);
    const nonce = browser.cookies.get(SIGN_IN_FLOW_COOKIE) ?? '';
    // The page load that carries the code in its address is logged, redacted.
    await browser.fetch(`/auth/callback?token=${code}`);
    await browser.exchange(code);
    expect(t.logText()).toContain('/auth/callback?token=');
    expect(t.logText()).not.toContain(nonce);
    expect(t.logText()).not.toContain(code);
  });
});
