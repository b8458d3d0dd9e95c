/**
 * A password change or reset ends the other sessions' access tokens at once, even one issued in
 * the same second as the change (issue 23 point 11: `iat` has second precision). The clock puts
 * the token's issue and the change in the same second, 300 ms apart, every run.
 */
import { describe, expect, it } from 'vitest';
import { type LoggedIn, login, refresh, signup, type TestAccount } from '../../test/auth.js';
import { ManualClock } from '../../test/clock.js';
import { eventsUrl, openSocket, originOf, refusedStatus, useListeningTestApp } from '../../test/sockets.js';
import { REFRESH_COOKIE } from './auth.routes.js';

/** 100 ms into a second: the 100 ms and 300 ms steps below stay inside it. */
const clock = new ManualClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 1_000 + 100));
const second = () => Math.floor(clock.now().getTime() / 1000);

const t = useListeningTestApp({ PUBLIC_URL: 'https://telerace.example' }, { clock });

const me = (accessToken: string) =>
  t.app.inject({ url: '/api/me', headers: { authorization: `Bearer ${accessToken}` } });

/** The HTTP status of the event socket's upgrade with this token (101 when it opens). */
async function socketAdmission(accessToken: string): Promise<number> {
  const opening = openSocket(eventsUrl(t.host, accessToken), originOf(t.app));
  try {
    const socket = await opening;
    await socket.close();
    return 101;
  } catch {
    return refusedStatus(opening);
  }
}

/**
 * Session A and session B of one member; B gets a fresh access token, then 300 ms later (same
 * second) `change` runs as A.
 */
async function bRenewedJustBefore(change: (a: LoggedIn, account: TestAccount) => Promise<void>) {
  const account = await signup(t.app);
  const a = await login(t.app, account);
  const b = await login(t.app, account);
  clock.advance(100);
  const issuedIn = second();
  const renewed = await refresh(t.app, b.refreshToken);
  expect(renewed.statusCode).toBe(200);
  const bToken = renewed.json().accessToken as string;
  expect((await me(bToken)).statusCode).toBe(200);
  clock.advance(300);
  await change(a, account);
  expect(second()).toBe(issuedIn);
  return { account, a, bToken };
}

describe('tokens issued in the same second as a password change', () => {
  it('a password change refuses the other session’s fresh token on REST and on socket admission; the changing session goes on', async () => {
    const { a, bToken } = await bRenewedJustBefore(async (a, account) => {
      const changed = await t.app.inject({
        method: 'POST',
        url: '/api/me/password',
        headers: { authorization: `Bearer ${a.accessToken}` },
        cookies: { [REFRESH_COOKIE]: a.refreshToken },
        payload: { currentPassword: account.password, newPassword: 'a much better passphrase' },
      });
      expect(changed.statusCode).toBe(200);
    });
    const refused = await me(bToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errorKey).toBe('errors.unauthorized');
    expect(await socketAdmission(bToken)).toBe(401);

    // Session A: its page refreshes with its kept cookie (same second still) and goes on.
    const renewed = await refresh(t.app, a.refreshToken);
    expect(renewed.statusCode).toBe(200);
    const aToken = renewed.json().accessToken as string;
    expect((await me(aToken)).statusCode).toBe(200);
    expect(await socketAdmission(aToken)).toBe(101);
  });

  it('a password reset (every session ends) refuses a token issued in its second; a new sign-in works', async () => {
    const { account, bToken } = await bRenewedJustBefore(async (_a, account) => {
      const asked = await t.app.inject({
        method: 'POST',
        url: '/api/forgot-password',
        payload: { email: account.email },
        remoteAddress: '10.9.1.1',
      });
      expect(asked.statusCode).toBe(200);
      await expect.poll(() => linkFor(account.email)).not.toBe('');
      const reset = await t.app.inject({
        method: 'POST',
        url: '/api/reset-password',
        payload: { token: linkFor(account.email), newPassword: 'a much better passphrase' },
      });
      expect(reset.statusCode).toBe(200);
    });
    expect((await me(bToken)).statusCode).toBe(401);
    expect(await socketAdmission(bToken)).toBe(401);

    const again = await login(t.app, { email: account.email, password: 'a much better passphrase' });
    expect((await me(again.accessToken)).statusCode).toBe(200);
    expect(await socketAdmission(again.accessToken)).toBe(101);
  });
});

/** The reset link the log mailer wrote for an address (SMTP_URL is not set here). */
function linkFor(email: string): string {
  const line = t.logLines().find((entry) => entry.mailTo === email);
  return /\/reset-password\/([A-Za-z0-9_-]+)/.exec(String(line?.text ?? ''))?.[1] ?? '';
}
