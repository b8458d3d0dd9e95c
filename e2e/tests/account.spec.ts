/**
 * The account screens against the real server: tickets badge and modal, profile edits, password
 * change, and the admin's Users and Login History tabs — including a ban that ends the banned
 * member's open session.
 */

import { E2E_ADMIN } from '../playwright.config.js';
import { expect, test } from './fixtures.js';
import { acceptCookies, fill, logIn, newMember, screenshot, signUp, translations } from './support.js';

const { en } = translations();

test.describe('account', () => {
  test('a member sees the tickets, edits the profile and changes the password', async ({
    page,
    context,
  }, testInfo) => {
    const member = newMember('racer');
    await acceptCookies(context);
    await signUp(page.request, member);
    await logIn(page, member.email, member.password);

    const badge = page.getByRole('button', { name: fill(en.tickets.badge, { total: 100 }) });
    await expect(badge).toBeVisible();
    await expect(badge).toHaveText('100');
    await badge.click();
    const modal = page.getByRole('dialog', { name: en.tickets.modal.title });
    await expect(modal).toBeVisible();
    await expect(modal.getByRole('heading', { name: en.tickets.modal.rules })).toBeVisible();
    await screenshot(page, testInfo, 'ticket-modal');
    await page.keyboard.press('Escape');
    await expect(modal).toBeHidden();

    await page.goto('/profile');
    await expect(page.getByTestId('profile-name')).toHaveText(member.username);
    const bio = 'Late braker, early apex.';
    await page.getByRole('textbox', { name: en.profile.about.bio }).fill(bio);
    await page.getByRole('button', { name: en.profile.about.save }).click();
    await expect(page.getByText(en.profile.about.saved)).toBeVisible();

    const renamed = `${member.username.slice(0, 24)}x`;
    const details = page.getByRole('form', { name: en.profile.details.title });
    await details.getByRole('textbox', { name: en.profile.details.username }).fill(renamed);
    await details.getByLabel(en.profile.details.currentPassword).fill(member.password);
    await details.getByRole('button', { name: en.profile.details.save }).click();
    await expect(page.getByText(en.profile.details.saved)).toBeVisible();

    await page.reload();
    await expect(page.getByTestId('profile-name')).toHaveText(renamed);
    await expect(page.getByRole('textbox', { name: en.profile.about.bio })).toHaveValue(bio);
    await screenshot(page, testInfo, 'profile');

    const newPassword = 'Second-Passw0rd!';
    const passwordForm = page.getByRole('form', { name: en.profile.password.changeTitle });
    await passwordForm.getByLabel(en.profile.password.current, { exact: true }).fill(member.password);
    await passwordForm.getByLabel(en.profile.password.new, { exact: true }).fill(newPassword);
    await passwordForm.getByLabel(en.profile.password.confirm, { exact: true }).fill(newPassword);
    await passwordForm.getByRole('button', { name: en.profile.password.change }).click();
    await expect(page.getByText(en.profile.password.changed)).toBeVisible();

    // The change refused every access token issued before it, this page's too: the next save
    // refreshes with the page's kept session and goes through.
    await page.getByRole('textbox', { name: en.profile.about.bio }).fill(`${bio} Still here.`);
    await page.getByRole('button', { name: en.profile.about.save }).click();
    await expect(page.getByText(en.profile.about.saved)).toBeVisible();

    await page
      .getByRole('region', { name: en.profile.session.title })
      .getByRole('button', { name: en.profile.session.logout })
      .click();
    await expect(page).toHaveURL(/\/login$/);
    await logIn(page, member.email, newPassword);
    await expect(page.getByRole('button', { name: fill(en.tickets.badge, { total: 100 }) })).toBeVisible();
  });

  test('a member deletes their account after typing the current password', async ({
    page,
    context,
  }, testInfo) => {
    const member = newMember('leaver');
    await acceptCookies(context);
    await signUp(page.request, member);
    await logIn(page, member.email, member.password);
    await page.goto('/profile');

    await page.getByRole('button', { name: en.profile.danger.delete }).click();
    const dialog = page.getByRole('dialog', { name: en.profile.danger.confirmTitle });
    await dialog.getByRole('checkbox', { name: en.profile.danger.understand }).check();
    const password = dialog.getByLabel(en.profile.danger.password, { exact: true });
    await password.fill('not-the-password');
    await password.press('Enter');
    await expect(dialog.getByText(en.errors.wrongCurrentPassword)).toBeVisible();
    await expect(page).toHaveURL(/\/profile$/);
    await screenshot(page, testInfo, 'delete-account-dark');

    // The same dialog in the light theme.
    await dialog.getByRole('button', { name: en.profile.cancel }).click();
    await page.getByTestId('theme-toggle').click();
    await expect(page.locator('html')).not.toHaveClass(/dark/);
    await page.getByRole('button', { name: en.profile.danger.delete }).click();
    await dialog.getByRole('checkbox', { name: en.profile.danger.understand }).check();
    await expect(password).toBeVisible();
    await screenshot(page, testInfo, 'delete-account-light');

    await password.fill(member.password);
    await password.press('Enter');
    await expect(page).toHaveURL(/\/login$/);
    const refused = await page.request.post('/api/login', {
      data: { email: member.email, password: member.password, recaptchaToken: '' },
    });
    expect(refused.status()).toBe(401);
  });

  test('an admin bans a member, whose open page is sent to the login screen', async ({
    browser,
  }, testInfo) => {
    test.setTimeout(90_000);
    const member = newMember('banme');
    const memberContext = await browser.newContext();
    const adminContext = await browser.newContext();
    await acceptCookies(memberContext);
    await acceptCookies(adminContext);
    const memberPage = await memberContext.newPage();
    const adminPage = await adminContext.newPage();

    await signUp(memberPage.request, member);
    await logIn(memberPage, member.email, member.password);
    await memberPage.goto('/profile');
    await expect(memberPage.getByTestId('profile-name')).toHaveText(member.username);

    await logIn(adminPage, E2E_ADMIN.email, E2E_ADMIN.password);
    await adminPage.goto('/admin');
    await adminPage.getByRole('tab', { name: en.admin.tabs.users }).click();
    await adminPage.getByRole('combobox', { name: en.admin.pagination.pageSize }).selectOption('100');
    const row = adminPage.getByRole('row').filter({ hasText: member.email });
    await expect(row).toBeVisible();
    await screenshot(adminPage, testInfo, 'admin-users');

    await row.getByRole('button', { name: en.admin.actions.ban, exact: true }).click();
    const confirm = adminPage.getByRole('dialog', {
      name: fill(en.admin.actions.banTitle, { name: member.username }),
    });
    await confirm.getByRole('button', { name: en.admin.actions.ban, exact: true }).click();
    await expect(adminPage.getByText(fill(en.admin.actions.banned, { name: member.username }))).toBeVisible();
    await expect(row.getByRole('button', { name: en.admin.actions.unban, exact: true })).toBeVisible();

    // The member's page learns of the ban at its next session check or token refresh.
    await expect(memberPage).toHaveURL(/\/login$/, { timeout: 30_000 });

    await adminPage.getByRole('tab', { name: en.admin.tabs.logins }).click();
    const logins = adminPage.getByRole('table', { name: en.admin.logins.caption });
    await expect(logins.getByRole('row').filter({ hasText: member.username }).first()).toBeVisible();
    await screenshot(adminPage, testInfo, 'admin-logins');

    await memberContext.close();
    await adminContext.close();
  });
});
