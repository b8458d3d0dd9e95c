import { createHash } from 'node:crypto';
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordResets, users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { login, refresh, signup } from '../../test/auth.js';
import { ManualClock } from '../../test/clock.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from './access-token.js';
import { RESET_TOKEN_MINUTES } from './auth.service.js';

type TestApp = Awaited<ReturnType<typeof startTestApp>>;

const SAME_ANSWER = { message: 'If an account exists for this e-mail, a reset link is on its way.' };

let t: TestApp;
/** Links expire by this clock: a test moves it instead of rewriting rows. */
const clock = new ManualClock();
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://telerace.example' }, { clock });
});
afterAll(() => t.close());

let ip = 0;
/** Each request from its own address: forgot-password is also rate-limited per IP. */
const forgot = (email: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/forgot-password',
    payload: { email },
    remoteAddress: `10.9.0.${++ip}`,
  });

const resetPassword = (token: string, newPassword: string) =>
  t.app.inject({ method: 'POST', url: '/api/reset-password', payload: { token, newPassword } });

/** The reset links the log mailer wrote for an address (SMTP_URL is not set here). */
function linksFor(email: string): string[] {
  return t
    .logLines()
    .filter((line) => line.mailTo === email)
    .map(
      (line) =>
        /https:\/\/telerace\.example\/reset-password\/([A-Za-z0-9_-]+)/.exec(String(line.text))?.[1] ?? '',
    );
}

/** The one answer to a used, expired, superseded or unknown link: it does not say which. */
function expectLinkRefused(response: Awaited<ReturnType<typeof resetPassword>>): void {
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    error: 'This reset link is invalid or has expired.',
    errorKey: ERROR_KEYS.resetTokenInvalid,
  });
}

/** A signed-in member who asked for a reset link and has not used it yet. */
async function memberWithResetLink() {
  const account = await signup(t.app);
  const session = await login(t.app, account);
  await forgot(account.email);
  const [token] = linksFor(account.email);
  return { account, session, token };
}

async function userId(email: string): Promise<number> {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.email, email));
  return row?.id ?? 0;
}

describe('password reset', () => {
  it('says at start-up that links go to the log', () => {
    expect(
      t.logLines().some((l) => l.msg === 'SMTP_URL is not set: password-reset links are written to this log'),
    ).toBe(true);
  });

  it('answers the same for unknown and known e-mails; the link resets the password once and ends sessions', async () => {
    const unknown = await forgot('nobody@example.com');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(SAME_ANSWER);

    const account = await signup(t.app);
    const session = await login(t.app, account);
    const known = await forgot(account.email.toUpperCase());
    expect(known.json()).toEqual(SAME_ANSWER);
    const [token] = linksFor(account.email);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored hashed, expiring in 60 minutes.
    const [row] = await t.app.database.db
      .select()
      .from(passwordResets)
      .where(eq(passwordResets.userId, await userId(account.email)));
    expect(row?.tokenHash).toBe(
      createHash('sha256')
        .update(token ?? '')
        .digest('hex'),
    );
    expect((row?.expiresAt.getTime() ?? 0) - clock.now().getTime()).toBe(60 * 60_000);

    const revoked: unknown[] = [];
    t.app.events.on('user.sessions-revoked', (event) => revoked.push(event));
    // A common password does not burn the token.
    const common = await resetPassword(token ?? '', 'password');
    expect(common.json().errorKey).toBe(ERROR_KEYS.passwordTooCommon);
    const ok = await resetPassword(token ?? '', 'a brand new passphrase');
    expect(ok.statusCode).toBe(200);
    expect(revoked).toEqual([{ userId: await userId(account.email), reason: 'password_changed' }]);
    expect((await refresh(t.app, session.refreshToken)).statusCode).toBe(401);
    await login(t.app, { email: account.email, password: 'a brand new passphrase' });

    expectLinkRefused(await resetPassword(token ?? '', 'yet another passphrase'));
  });

  it('refuses access tokens issued before the reset', async () => {
    const account = await signup(t.app);
    const id = await userId(account.email);
    const iat = Math.floor(clock.now().getTime() / 1000) - 5;
    // Issued 5 s before the reset by the server's clock (the one the reset's cut is read from).
    const oldToken = await new SignJWT({ iat_ms: clock.now().getTime() - 5_000 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(id))
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuer(TOKEN_ISSUER)
      .sign(new TextEncoder().encode(t.config.jwtSecret));
    const me = () => t.app.inject({ url: '/api/me', headers: { authorization: `Bearer ${oldToken}` } });
    expect((await me()).statusCode).toBe(200);
    await forgot(account.email);
    const [token] = linksFor(account.email);
    expect((await resetPassword(token ?? '', 'a brand new passphrase')).statusCode).toBe(200);
    expect((await me()).statusCode).toBe(401);
  });

  it('a password change from the profile invalidates an outstanding reset link', async () => {
    const { account, session, token } = await memberWithResetLink();
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/me/password',
      headers: { authorization: `Bearer ${session.accessToken}` },
      payload: { currentPassword: account.password, newPassword: 'a changed passphrase' },
    });
    expect(changed.statusCode).toBe(200);
    expectLinkRefused(await resetPassword(token ?? '', 'the attacker passphrase'));
    await login(t.app, { email: account.email, password: 'a changed passphrase' });
  });

  it('an e-mail change invalidates an outstanding reset link (it went to the old address)', async () => {
    const { account, session, token } = await memberWithResetLink();
    const changed = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/details',
      headers: { authorization: `Bearer ${session.accessToken}` },
      payload: {
        username: account.username,
        email: `moved-${account.email}`,
        currentPassword: account.password,
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expectLinkRefused(await resetPassword(token ?? '', 'the attacker passphrase'));
  });

  it('a username-only change keeps the reset link', async () => {
    const { account, session, token } = await memberWithResetLink();
    const changed = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/details',
      headers: { authorization: `Bearer ${session.accessToken}` },
      payload: { username: `${account.username.slice(0, 20)}-new`, currentPassword: account.password },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await resetPassword(token ?? '', 'a brand new passphrase')).statusCode).toBe(200);
  });

  it('a newer token invalidates the older one', async () => {
    const account = await signup(t.app);
    await forgot(account.email);
    await forgot(account.email);
    const [older, newer] = linksFor(account.email);
    expect((await resetPassword(older ?? '', 'a brand new passphrase')).statusCode).toBe(400);
    expect((await resetPassword(newer ?? '', 'a brand new passphrase')).statusCode).toBe(200);
  });

  it('a link works until its time is up, then is refused', async () => {
    const early = await signup(t.app);
    const late = await signup(t.app);
    await forgot(early.email);
    await forgot(late.email);
    const [earlyToken] = linksFor(early.email);
    const [lateToken] = linksFor(late.email);
    clock.advance(RESET_TOKEN_MINUTES * 60_000 - 1000);
    expect((await resetPassword(earlyToken ?? '', 'a brand new passphrase')).statusCode).toBe(200);
    clock.advance(2000);
    expectLinkRefused(await resetPassword(lateToken ?? '', 'a brand new passphrase'));
  });

  it('sends at most 3 mails per account per hour, answering the same', async () => {
    const account = await signup(t.app);
    for (let i = 0; i < 5; i++) expect((await forgot(account.email)).json()).toEqual(SAME_ANSWER);
    expect(linksFor(account.email)).toHaveLength(3);
  });

  it('a reset forgets the failed logins on the account: the slowed address logs in at once with the new password', async () => {
    const account = await signup(t.app);
    const attempt = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: account.email, password },
        remoteAddress: '10.9.1.1',
      });
    for (let i = 0; i < 7; i++) await attempt('not the password');
    expect((await attempt(account.password)).statusCode).toBe(429);
    await forgot(account.email);
    const [token] = linksFor(account.email);
    expect((await resetPassword(token ?? '', 'a brand new passphrase')).statusCode).toBe(200);
    expect((await attempt('a brand new passphrase')).statusCode).toBe(200);
  });

  it('an unknown token is refused', async () => {
    expect((await resetPassword('x'.repeat(43), 'a brand new passphrase')).statusCode).toBe(400);
  });
});
