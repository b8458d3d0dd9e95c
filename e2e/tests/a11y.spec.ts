import { expect, test } from './fixtures.js';
import { seriousA11yViolations, switchTheme } from './support.js';

const PUBLIC_PAGES = [
  '/',
  '/about',
  '/faq',
  '/privacy-policy',
  '/terms-of-service',
  '/leaderboards',
  '/login',
  '/signup',
];

// One page load per page: axe in full in the dark theme, then the light theme's colours (the
// only thing a theme changes) on the same page.
for (const path of PUBLIC_PAGES) {
  test(`${path} has no serious accessibility violations in the dark and the light theme`, async ({
    page,
  }) => {
    await page.addInitScript(() => window.localStorage.setItem('theme', 'dark'));
    // Colours change at once (no transition half-way through when axe reads them).
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await seriousA11yViolations(page), `${path} in the dark theme`).toEqual([]);
    await switchTheme(page, 'light');
    // Polled, not read once, though switchTheme finishes the colours' transitions: a loaded CI run
    // once failed the privacy page's table cells in the light theme while every other run passed.
    // A real contrast fault fails every read until the timeout.
    await expect
      .poll(() => seriousA11yViolations(page, { rules: ['color-contrast'] }), {
        message: `${path} in the light theme`,
        timeout: 10_000,
      })
      .toEqual([]);
  });
}

test('the whole page is reachable by keyboard, starting with the skip link', async ({ page }) => {
  await page.goto('/');
  // Wait for the page itself: while the session loads only "Initializing Session..." is shown.
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.locator(':focus');
  await expect(skip).toHaveAttribute('href', '#main');
  await page.keyboard.press('Enter');
  await expect(page.locator('#main')).toBeInViewport();
});
