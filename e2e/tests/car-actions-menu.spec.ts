/**
 * A car's actions in the admin's Car Status tab (issue 41 point 10): the row's Actions menu floats
 * over the table, every action wholly in the window and the topmost thing at its place (the table's
 * scrolling box used to cut the menu after two actions), on a desktop and on a phone held
 * sideways, for the first and the last car; on a 360 px phone each card shows its actions. Nothing
 * scrolls the table meanwhile. English dark and French light.
 */

import { E2E_ADMIN } from '../playwright.config.js';
import { expect, type Locator, type Page, test } from './fixtures.js';
import { acceptCookies, fill, logIn, screenshot, switchTheme, translations } from './support.js';

const { en, fr } = translations();

const SIZES = [
  { size: 'desktop', viewport: { width: 1280, height: 800 }, touch: false },
  { size: 'phone-sideways', viewport: { width: 844, height: 390 }, touch: true },
  { size: 'phone-360', viewport: { width: 360, height: 780 }, touch: true },
] as const;

const LOOKS = [
  { lng: 'en', t: en, theme: 'dark' },
  { lng: 'fr', t: fr, theme: 'light' },
] as const;

/** Every action's label, in the menu's order. */
const actionLabels = (t: typeof en) =>
  (['generateCode', 'kick', 'reboot', 'shutdown', 'rotateSecret', 'delete', 'speedAndTrim'] as const).map(
    (kind) => t.carStatus.actions[kind],
  );

/** Wholly inside the window, and what a click at its middle lands on (not hidden by anything). */
async function expectReachable(action: Locator, label: string) {
  await expect(action, label).toBeInViewport({ ratio: 1 });
  const onTop = await action.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && element.contains(hit);
  });
  expect(onTop, `${label} is the topmost element at its middle`).toBe(true);
  // Actionable where it stands: the checks of a click, without clicking.
  if (await action.isEnabled()) await action.click({ trial: true });
}

/** How far the car table has scrolled, either way. */
const tableScroll = (page: Page) =>
  page
    .locator('#admin-panel-car-status section[aria-label]:has(table)')
    .evaluate((element) => [element.scrollLeft, element.scrollTop]);

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

for (const { size, viewport, touch } of SIZES) {
  test.describe(`at ${size}`, () => {
    test.use({ viewport, hasTouch: touch, isMobile: touch });

    test('every action of a car is in view and can be clicked', async ({ page }, testInfo) => {
      await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
      for (const { lng, t, theme } of LOOKS) {
        await page.goto(`/admin?tab=car-status&lng=${lng}`);
        // Once the cars show, the session has loaded (it applies the account's theme).
        await expect(
          page.locator('#admin-panel-car-status').getByText('Sim 1').filter({ visible: true }).first(),
        ).toBeVisible();
        await switchTheme(page, theme);
        const labels = actionLabels(t);

        if (size === 'phone-360') {
          const cards = page.locator('[data-testid^="admin-car-card-"]');
          await expect(cards.first()).toBeVisible();
          const last = cards.last();
          await last.scrollIntoViewIfNeeded();
          // The card's last group: its actions (the lap counter id's field comes before).
          const group = last.getByRole('group').last();
          for (const label of labels) {
            const action = group.getByRole('button', { name: label, exact: true });
            await action.scrollIntoViewIfNeeded();
            await expectReachable(action, `${label} (${lng})`);
          }
          await group.scrollIntoViewIfNeeded();
          await screenshot(page, testInfo, `car-actions-menu-open-${lng}-${size}-${theme}`, {
            fullPage: false,
          });
          continue;
        }

        const rows = page.locator('#admin-panel-car-status tbody tr');
        // Placeholder rows first, while the cars load: wait for a real row's menu button.
        await expect(rows.first().locator('[aria-haspopup="menu"]')).toBeVisible();
        // The page is no wider than the window (a phone would otherwise zoom out or pan sideways).
        expect(await page.evaluate(() => window.innerWidth)).toBe(viewport.width);
        for (const which of ['first', 'last'] as const) {
          const row = which === 'first' ? rows.first() : rows.last();
          const name = (await row.getByRole('rowheader').locator('.truncate').textContent()) ?? '';
          const opener = row.getByRole('button', { name: fill(t.carStatus.actionsFor, { name }) });
          await opener.scrollIntoViewIfNeeded();
          const scrolled = await tableScroll(page);
          await opener.click();
          const menu = page.getByRole('menu', { name: fill(t.carStatus.actionsFor, { name }) });
          await expect(menu.getByRole('menuitem')).toHaveText(labels);
          for (const label of labels) {
            await expectReachable(
              menu.getByRole('menuitem', { name: label, exact: true }),
              `${label} (${lng}, ${which} car)`,
            );
          }
          expect(await tableScroll(page), 'the table did not scroll').toEqual(scrolled);
          if (which === 'last') {
            await screenshot(page, testInfo, `car-actions-menu-open-${lng}-${size}-${theme}`, {
              fullPage: false,
            });
            // The last action, the one furthest down the menu: its dialog opens.
            await menu.getByRole('menuitem', { name: t.carStatus.actions.speedAndTrim, exact: true }).click();
            await expect(menu).toBeHidden();
            await expect(page.getByRole('dialog')).toBeVisible();
            await page.keyboard.press('Escape');
            await expect(page.getByRole('dialog')).toBeHidden();
          } else {
            await page.keyboard.press('Escape');
            await expect(menu).toBeHidden();
            await expect(opener).toBeFocused();
          }
        }
      }
    });
  });
}
