/**
 * Login CSRF through /auth/callback (issue 10): an attacker's link must not sign the victim's
 * browser in as the attacker. The attacker has a real session in one browser context; the victim
 * opens the attacker's crafted link in another. The one-time code's binding to the browser that
 * started the flow (a code from context A refused in context B) is proven over real HTTP with two
 * cookie jars in apps/server/src/modules/auth/login-codes.test.ts: this server has no sign-in
 * provider yet to issue codes from a browser (the social sign-in issue adds one).
 */
import { expect, test } from './fixtures.js';
import { acceptCookies, fill, newMember, signUp, translations } from './support.js';

const { en } = translations();

test('a victim opening an attacker’s /auth/callback link is not signed in', async ({ browser, request }) => {
  const attacker = newMember('mallory');
  await signUp(request, attacker);
  const login = await request.post('/api/login', {
    data: { email: attacker.email, password: attacker.password, recaptchaToken: '' },
  });
  expect(login.status()).toBe(200);
  const { accessToken } = (await login.json()) as { accessToken: string };

  const victimContext = await browser.newContext();
  await acceptCookies(victimContext);
  const victim = await victimContext.newPage();
  const bearers: string[] = [];
  victim.on('request', (sent) => {
    const auth = sent.headers().authorization;
    if (auth) bearers.push(auth);
  });

  // The old form of the link: an access token in the address (no longer adopted).
  await victim.goto(
    `/auth/callback?token=${encodeURIComponent(accessToken)}&destination=%2Fprofile&controlToken=ct-1&carId=1`,
  );
  await expect(victim).toHaveURL(/\/login\?error=auth_failed$/);
  await expect(victim.getByRole('alert')).toHaveText(en.login.reasons.generic);
  const banner = victim.getByRole('banner');
  await expect(banner.getByRole('link', { name: en.topbar.login, exact: true })).toBeVisible();
  await expect(banner.getByText(fill(en.topbar.greeting, { name: attacker.username }))).toHaveCount(0);
  expect(await victim.evaluate(() => window.sessionStorage.getItem('controlToken:1'))).toBeNull();

  // A code the victim's browser did not ask for (forged, or issued to the attacker's browser).
  await victim.goto(
    '/auth/callback?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&destination=%2Fprofile',
  );
  await expect(victim).toHaveURL(/\/login\?error=auth_failed$/);
  await expect(victim.getByRole('alert')).toHaveText(en.login.reasons.generic);

  expect(bearers).not.toContain(`Bearer ${accessToken}`);
  const me = await victim.request.get('/api/me');
  expect(me.status()).toBe(401);
  await victimContext.close();
});
