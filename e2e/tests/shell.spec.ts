import { expect, test } from './fixtures.js';
import { screenshot, translations } from './support.js';

const { en, fr } = translations();
/** The text inside `<tag>…</tag>` of a translated sentence (the banner's embedded links). */
const tagged = (text: string, tag: string) => new RegExp(`<${tag}>(.*?)</${tag}>`).exec(text)?.[1] ?? tag;

test.describe('the site shell', () => {
  test('home renders in English by default and in French on request', async ({ page }, testInfo) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.pages.home.title);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await screenshot(page, testInfo, 'home-en');

    await page.goto('/?lng=fr');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(fr.pages.home.title);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await screenshot(page, testInfo, 'home-fr');
  });

  test('the first page does not preload zod (a module the app shell reads must not hold schemas)', async ({
    request,
  }) => {
    // The bundler puts a module whole into one chunk: a schema beside a constant the shell reads
    // (packages/protocol/src/sockets.ts once held both) made every first page download zod.
    const home = await (await request.get('/')).text();
    expect(home).toContain('rel="modulepreload"');
    expect(home).not.toMatch(/assets\/zod-/);
  });

  test('the language switch works and persists across reloads', async ({ page }) => {
    await page.goto('/about');
    await expect(page.getByTestId('lang-en')).toBeDisabled();
    await page.getByTestId('lang-fr').click();
    await expect(page.getByTestId('lang-fr')).toBeDisabled();
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(fr.pages.about.title);

    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(fr.pages.about.title);
    await expect(page.getByTestId('lang-fr')).toBeDisabled();
  });

  test('the theme toggle persists across reloads', async ({ page }, testInfo) => {
    await page.goto('/');
    const html = page.locator('html');
    await expect(html).toHaveClass(/(^|\s)dark(\s|$)/);
    await page.getByTestId('theme-toggle').click();
    await expect(html).not.toHaveClass(/(^|\s)dark(\s|$)/);
    await screenshot(page, testInfo, 'home-light');

    await page.reload();
    await expect(html).not.toHaveClass(/(^|\s)dark(\s|$)/);
    await page.getByTestId('theme-toggle').click();
    await expect(html).toHaveClass(/(^|\s)dark(\s|$)/);
    await page.reload();
    await expect(html).toHaveClass(/(^|\s)dark(\s|$)/);
  });

  test('the cookie banner hides on accept and stays hidden', async ({ page, context }) => {
    await page.goto('/');
    const banner = page.getByRole('region', { name: en.cookie.label });
    await expect(banner).toBeVisible();
    await expect(banner.getByRole('link', { name: tagged(en.cookie.text, 'privacy') })).toHaveAttribute(
      'href',
      '/privacy-policy',
    );
    await expect(banner.getByRole('link', { name: tagged(en.cookie.text, 'terms') })).toHaveAttribute(
      'href',
      '/terms-of-service',
    );
    await page.getByTestId('cookie-accept').click();
    await expect(banner).toBeHidden();

    const consent = (await context.cookies()).find((c) => c.name === 'telerace_cookie_consent');
    expect(consent).toBeDefined();
    const days = ((consent?.expires ?? 0) - Date.now() / 1000) / 86_400;
    expect(Math.round(days)).toBe(150);

    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(banner).toBeHidden();
  });

  for (const path of ['/admin', '/profile', '/car-selection', '/settings', '/control/1/1']) {
    test(`${path} sends a signed-out visitor to /login`, async ({ page }) => {
      await page.goto(path);
      await expect(page).toHaveURL(/\/login$/);
    });
  }

  test('an unknown path shows the home page', async ({ page }) => {
    const response = await page.goto('/no/such/page');
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.pages.home.title);
    await expect(page).toHaveURL(/\/no\/such\/page$/);
  });

  test('unknown API paths answer a JSON 404', async ({ request }) => {
    const response = await request.get('/api/no-such-thing');
    expect(response.status()).toBe(404);
    expect(await response.json()).toMatchObject({ error: expect.any(String) });
  });

  test('the footer links to about, privacy and terms with the current year @mobile', async ({
    page,
  }, testInfo) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    await expect(footer.getByRole('link', { name: en.footer.about })).toHaveAttribute('href', '/about');
    await expect(footer.getByRole('link', { name: en.footer.privacy })).toHaveAttribute(
      'href',
      '/privacy-policy',
    );
    await expect(footer.getByRole('link', { name: en.footer.terms })).toHaveAttribute(
      'href',
      '/terms-of-service',
    );
    await expect(footer).toContainText(String(new Date().getFullYear()));
    await screenshot(page, testInfo, 'home-footer');
  });
});
