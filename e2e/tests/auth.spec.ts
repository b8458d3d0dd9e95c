/**
 * Sign-up, login and logout against the real server, including the silent token refresh: access
 * tokens live 10 s in these runs (ACCESS_TOKEN_TTL_SECONDS), so a session that outlives one must
 * keep working without the member noticing.
 */

import { E2E_RAFFLE_URL } from '../playwright.config.js';
import { expect, type Page, type Response, test } from './fixtures.js';
import { screensOf } from './screens.js';
import {
  acceptCookies,
  expiredOnServer,
  fill,
  type Member,
  newMember,
  screenshot,
  translations,
} from './support.js';

const { en, fr } = translations();

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
    // Signed in at once (issue 41 point 7): a welcome, the header greets the member, on to the cars.
    await expect(page).toHaveURL(/\/signup-success$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.screens.signupSuccess);
    await expect(greeting(page, member)).toBeVisible();
    await expect(page.getByRole('main')).toContainText(
      fill(en.signup.success.welcome, { name: member.username }),
    );
    // A real session (the refresh cookie): a reload keeps the member signed in.
    await page.reload();
    await expect(greeting(page, member)).toBeVisible();
    await page.getByRole('main').getByRole('link', { name: en.signup.success.chooseCar }).click();
    await expect(page).toHaveURL(/\/car-selection$/);

    // Log out, and in again with the form.
    await page.getByRole('banner').getByRole('button', { name: en.topbar.logout }).click();
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
  test('social buttons of providers not configured are not shown, nor their "or … with" part', async ({
    page,
  }) => {
    // The server drew the page from the public config (issue 45): the HTML already shows what it allows.
    await page.goto('/');
    // The home page promises the e-mail only (issue 41 point 8).
    await expect(page.getByText(en.pages.home.how.steps.signup.text, { exact: true })).toBeVisible();
    for (const [path, submit, divider] of [
      ['/signup', en.signup.submit, en.signup.socialTitle],
      ['/login', en.login.submit, en.login.socialTitle],
    ] as const) {
      await page
        .getByRole('banner')
        .getByRole('link', { name: path === '/signup' ? en.topbar.signup : en.topbar.login })
        .click();
      await expect(page).toHaveURL(new RegExp(`${path}$`));
      const main = page.getByRole('main');
      await expect(main.getByRole('button', { name: submit, exact: true })).toBeVisible();
      await expect(main.getByText(divider)).toHaveCount(0);
      await expect(main.getByText(/Twitch|YouTube|Discord/)).toHaveCount(0);
    }
  });

  test('sign-up fits a phone @mobile', async ({ page }, testInfo) => {
    await page.goto('/signup');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.screens.signup);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
    await screenshot(page, testInfo, 'signup-mobile');
  });
});

test.describe('screenshots (issue 41)', () => {
  test('the welcome after sign-up, and log-in with its social part', async ({ browser }, testInfo) => {
    const baseURL = testInfo.project.use.baseURL ?? '';
    await screensOf(browser, testInfo, 'signup-welcome', baseURL, async (page, language) => {
      const t = language === 'fr' ? fr : en;
      const member = newMember('welcome');
      await page.goto('/signup');
      await page.getByLabel(t.auth.email, { exact: true }).fill(member.email);
      await page.getByLabel(t.signup.username, { exact: true }).fill(member.username);
      await page.getByLabel(t.auth.password, { exact: true }).fill(member.password);
      await page.getByRole('checkbox').check();
      await page.getByRole('button', { name: t.signup.submit, exact: true }).click();
      await expect(page.getByRole('main')).toContainText(
        fill(t.signup.success.welcome, { name: member.username }),
      );
    });
    // A server with some platforms configured: their buttons only, under "or log in with".
    await screensOf(browser, testInfo, 'login-social', E2E_RAFFLE_URL, async (page, language) => {
      const t = language === 'fr' ? fr : en;
      const { socialProviders } = (await (await page.request.get('/api/public-config')).json()) as {
        socialProviders: Record<'twitch' | 'youtube' | 'discord', boolean>;
      };
      expect(Object.values(socialProviders)).toContain(false);
      await page.goto('/login');
      await expect(page.getByText(t.login.socialTitle)).toBeVisible();
      for (const platform of ['twitch', 'youtube', 'discord'] as const) {
        const configured = socialProviders[platform];
        const link = page.getByRole('link', {
          name: fill(t.social.loginWith, { platform: t.social[platform] }),
        });
        await expect(link).toHaveCount(configured ? 1 : 0);
      }
    });
  });
});
