/**
 * Nothing overflows sideways (issue 25): the public pages at 360 px, the narrowest phone a stream's
 * viewer brings, and the admin's tables at 1280 px — in English and in French, whose words are longer.
 */

import { E2E_ADMIN } from '../playwright.config.js';
import { expect, type Page, test } from './fixtures.js';
import { screensOf } from './screens.js';
import { acceptCookies, logIn, newMember, screenshot, signUp, translations } from './support.js';

const { en, fr } = translations();

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

/**
 * The leaderboards on a phone (issue 41 point 6): every tab's table fits 360 px with no sideways
 * scrolling, and every cell a reader sees holds its value. The boards are served by the test
 * (long names, many laps and races) so the widest values are there without running races.
 */
const LONG_NAME = 'Alexandrine-Maximilienne';
const boardRows = Array.from({ length: 10 }, (_, i) => ({
  user_id: 1000 + i,
  username: `${LONG_NAME}${i}#${1000 + i}`,
  avatar_url: null,
  best_race_laps: 128 - i,
  best_race_lap_time: 123_456 + i * 789,
  total_races: 1234 - i,
}));
const historyRows = Array.from({ length: 10 }, (_, i) => ({
  race_id: 98_760 + i,
  race_finished_at: new Date(Date.now() - (i + 1) * 86_400_000).toISOString(),
  total_laps: 120 + i,
  best_lap_time_ms: 123_456 + i * 789,
}));

/** A race of two drivers and twelve laps each, for the lap chart. */
const chartRace = {
  id: 77,
  started_at: '2026-12-01T20:00:00.000Z',
  finished_at: '2026-12-01T20:05:00.000Z',
  participants: [1, 2].map((position) => ({
    position,
    user_id: 500 + position,
    username: `${LONG_NAME}${position}#${500 + position}`,
    avatar_url: null,
    car_id: 900 + position,
    car_name: position === 1 ? 'Red Comet' : 'Blue Bolt',
    total_laps: 12,
    best_lap_time_ms: 11_000 + position * 300,
    laps: Array.from({ length: 12 }, (_, i) => ({
      lap_number: i + 1,
      lap_time_ms: 11_000 + position * 300 + ((i * 7919) % 2500),
      completed_at: new Date(Date.parse('2026-12-01T20:00:00.000Z') + (i + 1) * 20_000).toISOString(),
    })),
  })),
};

async function serveBoards(page: Page): Promise<void> {
  await page.route(/\/api\/leaderboards\//, (route) =>
    route.fulfill({ json: { data: boardRows, totalCount: 240 } }),
  );
  await page.route(/\/api\/me\/race-history/, (route) =>
    route.fulfill({ json: { data: historyRows, totalCount: 240 } }),
  );
}

/** How much the tab's table is wider than its frame, and the visible cells with no text or cut off. */
const tableFit = (page: Page, caption: string) =>
  page.getByRole('region', { name: caption }).evaluate((frame) => {
    const box = frame.getBoundingClientRect();
    const cells = [...frame.querySelectorAll('th, td')].filter((cell) => cell.getClientRects().length > 0);
    return {
      wider: frame.scrollWidth - frame.clientWidth,
      cells: cells.length,
      empty: cells.filter((cell) => (cell.textContent ?? '').trim() === '').map((cell) => cell.outerHTML),
      cut: cells
        .filter((cell) => cell.getBoundingClientRect().right > box.right + 0.5)
        .map((cell) => cell.textContent),
    };
  });

const TABS = [
  { tab: 'all-time', name: en.leaderboards.tabs.allTime, caption: en.leaderboards.allTimeCaption },
  { tab: 'season', name: en.leaderboards.tabs.season, caption: en.leaderboards.seasonCaption },
  { tab: 'history', name: en.leaderboards.tabs.history, caption: en.leaderboards.historyCaption },
];

test.describe('leaderboards at 360 px', () => {
  test.use({ viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true });
  test('every tab fits with each value in sight', async ({ page, request }) => {
    const member = newMember('boards');
    await signUp(request, member);
    await serveBoards(page);
    await logIn(page, member.email, member.password);
    for (const { tab, name, caption } of TABS) {
      await page.goto(`/leaderboards?tab=${tab}`);
      await expect(page.getByRole('tab', { name, exact: true })).toHaveAttribute('aria-selected', 'true');
      // Every tab in sight: none scrolled out of the tab list.
      for (const other of TABS) {
        const box = await page.getByRole('tab', { name: other.name, exact: true }).boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 360, other.tab).toBe(true);
      }
      await expect(page.getByRole('table', { name: caption })).toBeVisible();
      const fit = await tableFit(page, caption);
      expect(fit.cells, tab).toBeGreaterThan(20);
      expect(fit, tab).toMatchObject({ wider: 0, empty: [], cut: [] });
      expect(await overflow(page), tab).toBe(0);
    }
    // A race's page, opened from my races: its participants fit too.
    await page.route(/\/api\/races\/77$/, (route) => route.fulfill({ json: chartRace }));
    await page.goto('/races/77');
    await expect(page.getByRole('table', { name: en.racePage.participantsCaption })).toBeVisible();
    expect(await tableFit(page, en.racePage.participantsCaption)).toMatchObject({
      wider: 0,
      empty: [],
      cut: [],
    });
    expect(await overflow(page)).toBe(0);
  });

  // A context's own request signs a new member up, and the sign-up signs that browser in (issue 41).
  for (const { tab } of TABS) {
    test(`screenshots of the ${tab} tab`, async ({ browser }, testInfo) => {
      const baseURL = testInfo.project.use.baseURL ?? '';
      await screensOf(browser, testInfo, `leaderboards-${tab}`, baseURL, async (page) => {
        await serveBoards(page);
        await signUp(page.request, newMember('shots'));
        await page.goto(`/leaderboards?tab=${tab}`);
        await expect(page.getByRole('table').first()).toBeVisible();
      });
    });
  }

  test('screenshots of the lap chart and the FAQ', async ({ browser }, testInfo) => {
    const baseURL = testInfo.project.use.baseURL ?? '';
    // A race's lap chart: its labels stay readable on a phone (issue 41 point 12).
    await screensOf(browser, testInfo, 'race-lap-chart', baseURL, async (page) => {
      await page.route(/\/api\/races\/77$/, (route) => route.fulfill({ json: chartRace }));
      await page.goto('/races/77');
      await page.getByTestId('race-chart').scrollIntoViewIfNeeded();
    });
    await screensOf(browser, testInfo, 'faq', baseURL, async (page, language) => {
      await page.goto('/faq');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(
        (language === 'fr' ? fr : en).pages.faq.title,
      );
    });
  });
});
