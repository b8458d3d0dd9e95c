/**
 * The public pages arrive as HTML (issue 45): a viewer following a link from a stream's chat sees
 * the page before any script has run. With JavaScript off, each page's heading and main content
 * are in the HTML, in the visitor's language; with it on, the page is hydrated from that HTML —
 * no hydration error (fixtures.ts fails the test on one), no second fetch of the answers the HTML
 * holds — in a time zone other than the server's. The raffle's status and entry count, and the
 * boards' first rows with a finished race, are checked where those exist: raffle.spec.ts and
 * race.spec.ts.
 */
import type { Browser, Page } from './fixtures.js';
import { expect, test } from './fixtures.js';
import { screenshot, translations } from './support.js';

const { en, fr } = translations();

/** Each public page without a record of its own, and the heading it opens with in each language. */
const PAGES: { path: string; heading: (t: typeof en) => string }[] = [
  { path: '/', heading: (t) => t.pages.home.title },
  { path: '/leaderboards', heading: (t) => t.screens.leaderboards },
  { path: '/claim', heading: (t) => t.screens.claim },
  { path: '/login', heading: (t) => t.screens.login },
  { path: '/signup', heading: (t) => t.screens.signup },
  { path: '/forgot-password', heading: (t) => t.screens.forgotPassword },
  { path: '/faq', heading: (t) => t.pages.faq.title },
  { path: '/about', heading: (t) => t.pages.about.title },
  { path: '/privacy-policy', heading: (t) => t.pages.privacy.title },
  { path: '/terms-of-service', heading: (t) => t.pages.terms.title },
];

const LOOKS = [
  { language: 'en', locale: 'en-US', t: en },
  { language: 'fr', locale: 'fr-FR', t: fr },
] as const;

/** A visitor without JavaScript, in `locale`, on a phone. */
async function withoutScripts(browser: Browser, locale: string): Promise<Page> {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    locale,
    viewport: { width: 360, height: 740 },
  });
  return context.newPage();
}

test.describe('public pages as HTML', () => {
  for (const { language, locale, t } of LOOKS) {
    test(`each public page holds its content without JavaScript (${language})`, async ({
      browser,
    }, testInfo) => {
      const page = await withoutScripts(browser, locale);
      for (const { path, heading } of PAGES) {
        await page.goto(path);
        await expect(page.locator('html'), path).toHaveAttribute('lang', language);
        await expect(page.getByRole('heading', { level: 1 }), path).toHaveText(heading(t));
        // The page itself, not the loading screen the app showed before (an empty #root and a spinner).
        const main = (await page.locator('main').textContent()) ?? '';
        expect(main.length, `${path}: ${main}`).toBeGreaterThan(40);
        await expect(page.getByRole('navigation').first(), path).toBeAttached();
      }
      await page.goto('/leaderboards');
      await screenshot(page, testInfo, `first-paint-leaderboards-no-js-${language}-360`);
      await page.goto('/login');
      await screenshot(page, testInfo, `first-paint-login-no-js-${language}-360`);
      await page.context().close();
    });
  }

  test('the page is hydrated from its HTML: same content, no second fetch of its answers, in another time zone', async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Pacific/Auckland' });
    const page = await context.newPage();
    for (const { path, heading } of PAGES) {
      const asked: string[] = [];
      const onRequest = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/api/')) asked.push(url.pathname + url.search);
      };
      page.on('request', onRequest);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }), path).toHaveText(heading(fr));
      // Hydrated: the language switch answers a click (a button only the live app handles).
      await expect(page.locator('html:not([data-hydrating])'), path).toHaveCount(1);
      await expect(page.getByTestId('lang-fr'), path).toBeDisabled();
      await page.waitForLoadState('networkidle');
      page.off('request', onRequest);
      // The answers the page was drawn from are not asked again (the public config, the boards…).
      expect(asked, path).toEqual([]);
    }
    // And it is the live app: switching the language redraws the page in English.
    await page.goto('/faq');
    await page.getByTestId('lang-en').click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.pages.faq.title);
    await context.close();
  });

  test('a drawn page runs no inline script: everything shows under the CSP and without JavaScript', async ({
    request,
  }) => {
    for (const { path } of PAGES) {
      const html = await (await request.get(path)).text();
      expect(html, path).toContain('id="telerace-page-state"');
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      // Only files, and the page's state (data, never run).
      for (const script of scripts) expect(script, path).toMatch(/\bsrc="|type="application\/json"/);
      // No Suspense boundary left pending for a script to reveal.
      expect(html, path).not.toContain('<!--$?-->');
    }
  });

  test('a visitor with a session gets the app drawn by the browser, signed in', async ({ request }) => {
    const anonymous = await (await request.get('/leaderboards')).text();
    expect(anonymous).toContain('id="telerace-page-state"');
    const member = await (
      await request.get('/leaderboards', { headers: { cookie: 'telerace_session=1' } })
    ).text();
    expect(member).not.toContain('id="telerace-page-state"');
  });
});
