/** Shared helpers for the browser tests: translations and screenshots kept as artifacts. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { E2E_ACCESS_TOKEN_TTL_SECONDS, E2E_ADMIN } from '../playwright.config.js';
import {
  type APIRequestContext,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  type TestInfo,
  test,
} from './fixtures.js';

const I18N = join(dirname(fileURLToPath(import.meta.url)), '../../apps/web/src/i18n');

/** The texts as the app assembles them (src/i18n/index.ts), typed from English: a text that does not exist fails typecheck. */
type Messages = typeof import('../../apps/web/src/i18n/en.json') & {
  pages: typeof import('../../apps/web/src/i18n/pages/en.json') &
    typeof import('../../apps/web/src/i18n/documents/en.json');
};

function load(lang: 'en' | 'fr'): Messages {
  const ui = JSON.parse(readFileSync(join(I18N, `${lang}.json`), 'utf8'));
  const read = (folder: string) => JSON.parse(readFileSync(join(I18N, folder, `${lang}.json`), 'utf8'));
  // The app shows `pages.*` from both folders (the long documents are fetched apart, src/i18n).
  return { ...ui, pages: { ...read('pages'), ...read('documents') } };
}

/** The app's own texts, so the tests check what a reader sees in each language. */
export function translations(): { en: Messages; fr: Messages } {
  return { en: load('en'), fr: load('fr') };
}

/** A screenshot (the full page unless told: the screen only) saved under test-results and attached to the report. */
export async function screenshot(
  page: Page,
  testInfo: TestInfo,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** `{{name}}` placeholders of a translated text filled in, as i18next does. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/{{\s*(\w+)\s*}}/g, (_, name: string) => String(values[name] ?? ''));

export interface Member {
  username: string;
  email: string;
  password: string;
}

/** A member nobody has used yet in this server's life. */
export function newMember(tag: string): Member {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return { username: `${tag}${id}`, email: `${tag}-${id}@e2e.telerace.test`, password: 'Start-Passw0rd!' };
}

/** Signs a member up through the API (the sign-up screen has its own test). */
export async function signUp(request: APIRequestContext, member: Member): Promise<void> {
  const response = await request.post('/api/signup', {
    data: { email: member.email, username: member.username, password: member.password, recaptchaToken: '' },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** The consent cookie, so the banner does not cover the buttons under test (on the project's server unless told). */
export async function acceptCookies(context: BrowserContext, url?: string): Promise<void> {
  const baseURL = url ?? test.info().project.use.baseURL ?? '';
  await context.addCookies([{ name: 'telerace_cookie_consent', value: '1', url: baseURL }]);
}

/**
 * Resolves once the server refuses `accessToken` because it expired (ACCESS_TOKEN_TTL_SECONDS after
 * it was issued): the server's own clock says when, asked every quarter second.
 */
export async function expiredOnServer(request: APIRequestContext, accessToken: string): Promise<void> {
  const status = async () =>
    (await request.get('/api/me', { headers: { authorization: `Bearer ${accessToken}` } })).status();
  expect(await status()).toBe(200);
  await expect
    .poll(status, { timeout: (E2E_ACCESS_TOKEN_TTL_SECONDS + 10) * 1000, intervals: [250] })
    .toBe(401);
}

/** Logs in through the login screen (in the page's language `t`) and waits for the home page. */
export async function logIn(
  page: Page,
  email: string,
  password: string,
  t: Messages = translations().en,
): Promise<void> {
  await page.goto('/login');
  await page.getByLabel(t.auth.email, { exact: true }).fill(email);
  await page.getByLabel(t.auth.password, { exact: true }).fill(password);
  await page.getByRole('button', { name: t.login.submit, exact: true }).click();
  await expect(page).toHaveURL(/\/$/);
}

/** An access token of the admin the e2e server seeds (E2E_ADMIN). */
export async function adminToken(request: APIRequestContext): Promise<string> {
  const response = await request.post('/api/login', { data: { ...E2E_ADMIN, recaptchaToken: '' } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

/** A simulated car's id by name, once its agent is connected. */
export async function onlineCar(request: APIRequestContext, name: string, token?: string): Promise<number> {
  const headers = { authorization: `Bearer ${token ?? (await adminToken(request))}` };
  let id = 0;
  await expect(async () => {
    const cars = (await (await request.get('/api/admin/cars', { headers })).json()) as {
      id: number;
      name: string;
      status: string;
    }[];
    const car = cars.find((c) => c.name === name);
    expect(car?.status).toBe('online');
    id = car?.id ?? 0;
  }).toPass({ timeout: 30_000 });
  return id;
}

/** A simulated car by name, once its agent is connected, and a fresh control code for it. */
export async function carWithCode(
  request: APIRequestContext,
  name: string,
): Promise<{ id: number; code: string }> {
  const token = await adminToken(request);
  const id = await onlineCar(request, name, token);
  const response = await request.post(`/api/admin/cars/${id}/generate_code`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  return { id, code: ((await response.json()) as { code: string }).code };
}

/**
 * Ends the car's driving session once a test is done with it (an admin's kick; 409 when it has
 * none left): the car's agent then stops rendering and encoding its camera, which a taken car
 * otherwise does until its session's end — for the rest of the run, on the cores the other
 * tests need.
 */
export async function freeCar(request: APIRequestContext, carId: number): Promise<void> {
  const response = await request.post(`/api/admin/cars/${carId}/kick`, {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
  });
  expect([200, 204, 409], await response.text()).toContain(response.status());
}

/** Frames the control page's player has decoded on its current connection. */
export async function framesDecoded(page: Page): Promise<number> {
  return (await videoStats(page)).framesDecoded;
}

/** The control page's player: its state and the frames decoded on its current connection. */
export async function videoStats(page: Page): Promise<{ state: string; framesDecoded: number }> {
  return page.evaluate(() => {
    const stats = (window as unknown as { __teleraceVideo?: { state: string; framesDecoded: number } })
      .__teleraceVideo;
    return { state: stats?.state ?? 'none', framesDecoded: stats?.framesDecoded ?? 0 };
  });
}

/** The speed the car reports, as shown on the control page (m/s). */
export async function speed(page: Page): Promise<number> {
  const text = (await page.getByTestId('telemetry-speed').textContent()) ?? '';
  return Number.parseFloat(text.replace(',', '.')) || 0;
}

/**
 * On the car list, enters the car's control code (as typed, in lower case) and lands on its
 * control page, connected; `t` is the page's language.
 */
export async function connectWithCode(
  page: Page,
  car: { id: number; code: string },
  t: Messages = translations().en,
): Promise<void> {
  await page.goto('/car-selection');
  await page.getByTestId(`car-${car.id}`).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(t.cars.codeLabel).pressSequentially(car.code.toLowerCase());
  await expect(dialog.getByLabel(t.cars.codeLabel)).toHaveValue(car.code);
  await dialog.getByRole('button', { name: t.cars.connect, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/control/${car.id}/\\d+$`));
  await expect(page.getByTestId('connection-state')).toHaveText(t.control.connection.connected);
}

/**
 * axe's serious and critical WCAG 2.1 A/AA findings on the page as it is now (empty: clean); only
 * inside `within` (a CSS selector) when given, or only the rules named in `rules`.
 */
export async function seriousA11yViolations(
  page: Page,
  { within, rules }: { within?: string; rules?: string[] } = {},
): Promise<string[]> {
  let axe = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (within) axe = axe.include(within);
  if (rules) axe = axe.withRules(rules);
  const results = await axe.analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * Switches the page to the other theme, as the theme toggle does, with its colour transitions
 * finished at once. With reduced motion a transition lasts 0.01 ms, but it only ends on the
 * renderer's next animation frame: until then getComputedStyle still reads the old theme's
 * colours, and on a loaded run axe read the terms page's list items in the dark theme's colour on
 * the light background for ten seconds (5 Dec 2026). A test checks each theme's colours, not the fade.
 */
export async function switchTheme(page: Page, to?: 'dark' | 'light'): Promise<void> {
  await page.evaluate((theme) => {
    const root = document.documentElement;
    root.classList.toggle('dark', theme === undefined ? undefined : theme === 'dark');
    // A finished transition hands its colour down: an inheriting child (the terms' list items)
    // only then starts its own. Until none is left; a few rounds (the page's depth) in practice.
    for (let round = 0; round < 20; round++) {
      const running = document.getAnimations().filter((animation) => animation instanceof CSSTransition);
      if (running.length === 0) return;
      for (const transition of running) transition.finish();
    }
  }, to);
}

/**
 * Screenshots of the screen as the driver sees it, in the page's theme and then in the other one
 * (`<name>-<theme>`), and axe clean in both (unless `axe: false`, for a state another test already
 * checks): each state of the control page, dark and light alike. `within`: the part of the page
 * axe reads (default the control page; an admin tab's panel for the admin's screens).
 */
export async function inBothThemes(
  page: Page,
  testInfo: TestInfo,
  name: string,
  { axe = true, within = '[data-testid="control-page"]' }: { axe?: boolean; within?: string } = {},
): Promise<void> {
  // Colours change at once (no 150 ms transition half-way through when axe reads them).
  await page.emulateMedia({ reducedMotion: 'reduce' });
  for (let i = 0; i < 2; i++) {
    const theme = await page.evaluate(() =>
      document.documentElement.classList.contains('dark') ? 'dark' : 'light',
    );
    await screenshot(page, testInfo, `${name}-${theme}`, { fullPage: false });
    // The part of the page (the control page with its full-screen stage by default); in the
    // second theme only what a theme changes, the colours' contrast.
    const checks = {
      within,
      rules: i === 0 ? undefined : ['color-contrast'],
    };
    if (axe) expect(await seriousA11yViolations(page, checks), `${name} in the ${theme} theme`).toEqual([]);
    await switchTheme(page);
  }
}

/**
 * A thumb on an on-screen stick, as a phone sends it (real touch events): down on the knob, slid
 * to `to` (fractions of the pad, 0–1 from its top left) and held there. Returns the lift.
 */
export async function holdTouch(
  page: Page,
  stick: Locator,
  to: { x: number; y: number },
): Promise<() => Promise<void>> {
  const box = await stick.boundingBox();
  if (!box) throw new Error('the stick is not on screen');
  const touch = await page.context().newCDPSession(page);
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [centre] });
  await touch.send('Input.dispatchTouchEvent', {
    type: 'touchMove',
    touchPoints: [{ x: box.x + box.width * to.x, y: box.y + box.height * to.y }],
  });
  return async () => {
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await touch.detach();
  };
}

/** The test id of the page's full-screen element, null outside full screen. */
export const fullScreenElement = (page: Page): Promise<string | null> =>
  page.evaluate(() => document.fullscreenElement?.getAttribute('data-testid') ?? null);

/** Whether the element with this test id is inside the page's full-screen element. */
export const inFullScreen = (page: Page, testId: string): Promise<boolean> =>
  page.evaluate(
    (id) => document.fullscreenElement?.contains(document.querySelector(`[data-testid="${id}"]`)) ?? false,
    testId,
  );
