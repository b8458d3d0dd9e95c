/**
 * Sign-up, login and logout against the real server, including the silent token refresh: access
 * tokens live 10 s in these runs (ACCESS_TOKEN_TTL_SECONDS), so a session that outlives one must
 * keep working without the member noticing.
 */
import { expect, type Page, type Response, test } from '@playwright/test';
import {
  acceptCookies,
  expiredOnServer,
  fill,
  type Member,
  newMember,
  screenshot,
  translations,
} from './support.js';

const { en } = translations();

async function fillSignup(page: Page, member: Member) {
  await page.goto('/signup');
  await page.getByLabel(en.auth.email, { exact: true }).fill(member.email);
  await page.getByLabel(en.signup.username, { exact: true }).fill(member.username);
  await page.getByLabel(en.auth.password, { exact: true }).fill(member.password);
  await page.getByRole('checkbox').check();
}

async function fillLogin(page: Page, email: string, password: string) {
  await page.getByLabel(en.auth.email, { exact: true }).fill(email);
  await page.getByLabel(en.auth.password, { exact: true }).fill(password);
  await page.getByRole('button', { name: en.login.submit, exact: true }).click();
}

const greeting = (page: Page, member: Member) =>
  page.getByRole('banner').getByRole('link', { name: fill(en.topbar.greeting, { name: member.username }) });

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test.describe('auth', () => {
  test('sign up, log in, keep the session past the token lifetime, log out', async ({
    page,
    request,
  }, testInfo) => {
    const member = newMember('pilot');

    await fillSignup(page, member);
    await expect(page.getByText(`${member.username.length}/30`)).toBeVisible();
    await screenshot(page, testInfo, 'signup');
    await page.getByRole('button', { name: en.signup.submit, exact: true }).click();
    await expect(page).toHaveURL(/\/signup-success$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.screens.signupSuccess);
    await page.getByRole('link', { name: en.signup.success.login }).click();
    await expect(page).toHaveURL(/\/login$/);

    await fillLogin(page, member.email, member.password);
    await expect(page).toHaveURL(/\/$/);
    await expect(greeting(page, member)).toBeVisible();
    await screenshot(page, testInfo, 'signed-in-home');

    // A reload restores the session from the refresh cookie: the page holds a new access token.
    const refreshed = (response: Response) =>
      response.url().endsWith('/api/refresh-token') && response.status() === 200;
    const restored = page.waitForResponse(refreshed);
    await page.reload();
    const { accessToken } = (await (await restored).json()) as { accessToken: string };
    await expect(greeting(page, member)).toBeVisible();

    // Outlive that token, then make the app call the API: the auth client must have renewed it
    // silently (or renew it on the 401 and retry), so the member stays signed in.
    const renewed = page.waitForResponse(refreshed);
    await expiredOnServer(request, accessToken);
    await renewed;
    const meAgain = page.waitForResponse(
      (response) => response.url().endsWith('/api/me') && response.status() === 200,
    );
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await meAgain;
    await greeting(page, member).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.screens.profile);
    await expect(greeting(page, member)).toBeVisible();

    await page.getByRole('banner').getByRole('button', { name: en.topbar.logout }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('banner').getByRole('link', { name: en.topbar.login })).toBeVisible();
    await page.goto('/profile');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('a wrong password shows "Invalid credentials"', async ({ page, request }, testInfo) => {
    const member = newMember('wrong');
    const response = await request.post('/api/signup', {
      data: { email: member.email, username: member.username, password: member.password, recaptchaToken: '' },
    });
    expect(response.status(), await response.text()).toBe(201);

    await page.goto('/login');
    await fillLogin(page, member.email, 'not-the-password');
    await expect(page.getByRole('alert')).toHaveText(en.errors.invalidCredentials);
    await expect(page).toHaveURL(/\/login$/);
    await screenshot(page, testInfo, 'login-error');
  });

  test('a duplicate sign-up shows "Email or username already in use"', async ({ page, request }) => {
    const member = newMember('twice');
    const response = await request.post('/api/signup', {
      data: { email: member.email, username: member.username, password: member.password, recaptchaToken: '' },
    });
    expect(response.status(), await response.text()).toBe(201);

    await fillSignup(page, member);
    await page.getByRole('button', { name: en.signup.submit, exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText(en.errors.emailOrUsernameInUse);
    await expect(page).toHaveURL(/\/signup$/);
  });

  test('the login page explains a refused Twitch login', async ({ page }) => {
    await page.goto('/login?auth=failed&reason=twitch_permission');
    await expect(page.getByRole('alert')).toHaveText(en.login.reasons.twitch_permission);
    await page.goto('/login?error=auth_failed');
    await expect(page.getByRole('alert')).toHaveText(en.login.reasons.generic);
  });

  // This server configures no provider; raffle.spec.ts follows a configured one (Twitch) for real.
  test('social buttons of providers not configured are disabled and say why', async ({ page }) => {
    await page.goto('/signup');
    for (const name of ['Twitch', 'YouTube', 'Discord']) {
      const button = page.getByRole('button', { name: fill(en.social.signupWith, { platform: name }) });
      await expect(button).toHaveAttribute('aria-disabled', 'true');
      await expect(button).toHaveAccessibleDescription(fill(en.social.unavailable, { platform: name }));
    }
    await expect(page.getByRole('link', { name: /Twitch|YouTube|Discord/ })).toHaveCount(0);
  });

  test('sign-up fits a phone @mobile', async ({ page }, testInfo) => {
    await page.goto('/signup');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.screens.signup);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
    await screenshot(page, testInfo, 'signup-mobile');
  });
});
