/**
 * Nothing overflows sideways (issue 25): the public pages at 360 px, the narrowest phone a stream's
 * viewer brings, and the admin's tables at 1280 px — in English and in French, whose words are longer.
 */
import { expect, type Page, test } from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config.js';
import { acceptCookies, logIn, screenshot } from './support.js';

/** How far the page (or an element) is wider than what shows it, in px; 0 when it fits. */
const overflow = (page: Page, selector?: string) =>
  page.evaluate((sel) => {
    const element = sel ? document.querySelector(sel) : document.documentElement;
    if (!element) throw new Error(`${sel} is not on the page`);
    return element.scrollWidth - element.clientWidth;
  }, selector);

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test.describe('at 360 px', () => {
  test.use({ viewport: { width: 360, height: 740 }, hasTouch: true });
  for (const path of ['/', '/leaderboards', '/login', '/signup', '/faq', '/about']) {
    test(`${path} fits the width in English and in French`, async ({ page }) => {
      for (const lng of ['en', 'fr']) {
        await page.goto(`${path}?lng=${lng}`);
        await expect(page.locator('html')).toHaveAttribute('lang', lng);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        expect(await overflow(page), `${path} in ${lng}`).toBe(0);
      }
    });
  }
});

test.describe('at 1280 px', () => {
  test.use({ viewport: { width: 1280, height: 800 } });
  test("the admin's tables fit in English and in French", async ({ page }, testInfo) => {
    await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
    for (const lng of ['en', 'fr']) {
      for (const tab of ['car-status', 'users', 'logins']) {
        await page.goto(`/admin?tab=${tab}&lng=${lng}`);
        const table = page.locator(`#admin-panel-${tab} section[aria-label]:has(table)`).first();
        await expect(table.locator('tbody tr').first()).toBeVisible();
        const wider = await table.evaluate((element) => element.scrollWidth - element.clientWidth);
        expect(wider, `${tab} in ${lng}`).toBe(0);
        expect(await overflow(page), `the page of ${tab} in ${lng}`).toBe(0);
      }
    }
    // A car's actions, behind its row's menu: opened, they stay inside the page.
    await page.goto('/admin?tab=car-status&lng=fr');
    const menu = page.locator('#admin-panel-car-status [aria-haspopup="menu"]').first();
    await menu.click();
    await expect(page.getByRole('menu').getByRole('menuitem').first()).toBeVisible();
    expect(await overflow(page)).toBe(0);
    await screenshot(page, testInfo, 'admin-car-status-fr-1280');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('menu')).toHaveCount(0);
    await expect(menu).toBeFocused();
  });
});
