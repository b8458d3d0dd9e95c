import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

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

for (const theme of ['dark', 'light'] as const) {
  for (const path of PUBLIC_PAGES) {
    test(`${path} has no serious accessibility violations in the ${theme} theme`, async ({ page }) => {
      await page.addInitScript((t) => window.localStorage.setItem('theme', t), theme);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const results = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const serious = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      expect(serious).toEqual([]);
    });
  }
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
