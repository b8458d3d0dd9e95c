/**
 * A whole race in the browser (issues 12 and 25): two members, each in a browser context of their
 * own, take the simulated cars Sim 1 and Sim 2 with a code; their control pages join the race
 * lobby by themselves, and they mark themselves ready; an admin starts the race from the Race
 * Control tab; after the countdown both drive (the sim car's steering assist keeps them on the
 * track) until the live leaderboard shows two completed laps each (so the chart draws lines, not
 * dots); the admin ends the race, both drivers are told and sent home, and the race is on the
 * leaderboards, in a driver's race history and on its own page with one chart line per driver.
 * At home each driver finds their result (issue 41), which links to the race's page.
 * Between the first and the second lap Janus is killed: the desktop driver's video comes back by
 * itself and the cars drive on (issue 26, fault 3).
 *
 * The two drivers see the race two ways: one on a desktop in English (dark theme), holding W;
 * the other on a phone held sideways in French (light theme), in full screen, driving with a
 * thumb on the stick over the video — every overlay of the race is inside the full-screen
 * element. Each state is screenshotted in both themes and checked with axe.
 *
 * The race is a server's global state and every control page joins the lobby by itself: this
 * test has its server to itself (playwright.config.ts `E2E_RACE_URL`).
 */

import { E2E_ADMIN, E2E_RACE_URL } from '../playwright.config.js';
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  test,
} from './fixtures.js';
import { janusPidsOf } from './processes.js';
import {
  acceptCookies,
  adminToken,
  carWithCode,
  connectWithCode,
  fill,
  fullScreenElement,
  holdTouch,
  inBothThemes,
  inFullScreen,
  logIn,
  type Member,
  newMember,
  screenshot,
  seriousA11yViolations,
  signUp,
  speed,
  switchTheme,
  translations,
  videoStats,
} from './support.js';

const { en, fr } = translations();

test.use({ baseURL: E2E_RACE_URL });

/**
 * A lap of the default sim track (about 25 m at up to 3 m/s) takes a little over 8 s, and the
 * first pass of the finish line (1 m ahead of the start) only starts lap 1: two laps take about
 * 17 s of driving. The waits are generous for a busy 2-core machine yet end well within the
 * 1-minute race, which must still be running when the admin ends it.
 */
const FIRST_LAP_TIMEOUT_MS = 30_000;
const SECOND_LAP_TIMEOUT_MS = 25_000;
/**
 * Janus killed: the player notices at once (its signalling socket closes) and retries after 1 s,
 * then 2 s; the supervisor starts Janus again after 1 s. The goal is 5 s; the bound has a margin
 * for a loaded 2-core run.
 */
const JANUS_RECOVERY_BOUND_MS = 7_000;

interface Driver {
  member: Member;
  context: BrowserContext;
  page: Page;
  /** The page's language's texts. */
  t: typeof en;
  /** The alerts the page showed (window.alert), accepted as a person would. */
  alerts: string[];
}

/** How a driver's browser looks: a desktop in English, or a phone held sideways in French. */
const DESKTOP = { viewport: { width: 1280, height: 800 }, locale: 'en-GB' } as const;
const PHONE_SIDEWAYS = {
  viewport: { width: 844, height: 390 },
  isMobile: true,
  hasTouch: true,
  locale: 'fr-FR',
} as const;

/** A member signed up and logged in in a browser context of their own, on their car's control page. */
async function driverOn(
  browser: Browser,
  request: APIRequestContext,
  tag: string,
  carName: string,
  device: typeof DESKTOP | typeof PHONE_SIDEWAYS,
  theme: 'dark' | 'light',
) {
  const member = newMember(tag);
  await signUp(request, member);
  const car = await carWithCode(request, carName);
  const context = await browser.newContext({ ...device, baseURL: E2E_RACE_URL });
  await acceptCookies(context, E2E_RACE_URL);
  await context.addInitScript((value) => {
    if (!window.localStorage.getItem('theme')) window.localStorage.setItem('theme', value);
  }, theme);
  const page = await context.newPage();
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  const t = device.locale === 'fr-FR' ? fr : en;
  await logIn(page, member.email, member.password, t);
  await connectWithCode(page, car, t);
  return { member, context, page, t, alerts } satisfies Driver;
}

/** The live leaderboard's rows as the page shows them: driver name → laps. */
async function lapsShown(table: Locator): Promise<Record<string, number>> {
  const rows = await table.locator('tbody tr').all();
  const laps: Record<string, number> = {};
  for (const row of rows) {
    const name = await row.locator('th').count();
    if (name === 0) continue; // the "no laps yet" row
    const driver = ((await row.locator('th').textContent()) ?? '').replace(/\s*\(.*\)$/, '').trim();
    laps[driver] = Number(await row.locator('td').last().textContent());
  }
  return laps;
}

const lobbyCount = (t: typeof en, ready: number, total: number) =>
  fill(t.race.lobby.readyCount, { ready, total });

// A whole minute of racing plus two drivers' set-up: 1.8 min on a loaded 2-core CI run.
test.describe.configure({ timeout: 240_000 });

test('two drivers and an admin run a whole race, from the lobby to the race chart', async ({
  browser,
  request,
}, testInfo) => {
  // Short races for a test: 6 s countdown (time to look at it on both pages), 1 min race, 3 s
  // minimum lap (the server is fresh for every run, so nothing is restored).
  const settings = await request.patch('/api/admin/settings', {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
    data: { race_countdown_seconds: 6, race_length_minutes: 1, min_lap_time_seconds: 3 },
  });
  expect(settings.status(), await settings.text()).toBe(200);

  const drivers: Driver[] = [
    await driverOn(browser, request, 'racerA', 'Sim 1', DESKTOP, 'dark'),
    await driverOn(browser, request, 'racerB', 'Sim 2', PHONE_SIDEWAYS, 'light'),
  ];
  const [first, second] = drivers as [Driver, Driver];
  const names = drivers.map((d) => d.member.username);

  const adminContext = await browser.newContext({ baseURL: E2E_RACE_URL });
  await acceptCookies(adminContext, E2E_RACE_URL);
  const admin = await adminContext.newPage();
  await logIn(admin, E2E_ADMIN.email, E2E_ADMIN.password);
  await admin.goto('/admin?tab=race-control');
  await expect(admin.getByTestId('admin-race-status')).toBeVisible();

  // The lobby: each control page joined it by itself, without a click.
  for (const { page, t } of drivers) {
    const overlay = page.getByTestId('video-area').getByTestId('race-overlay');
    await expect(overlay).toHaveAttribute('data-status', 'lobby');
    await expect(overlay.getByTestId('race-lobby-count')).toHaveText(lobbyCount(t, 0, 2));
    await expect(overlay.getByTestId('race-ready-toggle')).toBeVisible();
  }
  for (const name of names) await expect(first.page.getByTestId('race-participants')).toContainText(name);

  // The phone goes full screen: the video, the race card and both sticks, nothing else.
  await second.page.getByTestId('full-screen-toggle').tap();
  await expect.poll(() => fullScreenElement(second.page)).toBe('video-area');
  for (const id of ['race-overlay', 'joystick-throttle', 'joystick-steer', 'full-screen-toggle']) {
    expect(await inFullScreen(second.page, id), `${id} in the full-screen element`).toBe(true);
  }
  await inBothThemes(first.page, testInfo, 'race-lobby-en-desktop');
  await inBothThemes(second.page, testInfo, 'race-lobby-fr-phone-full-screen');

  // Each says they are ready: on the desktop with a click, in full screen with a tap.
  await first.page.getByTestId('race-ready-toggle').click();
  await expect(first.page.getByTestId('race-ready-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expect(first.page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(en, 1, 2));
  await second.page.getByTestId('race-ready-toggle').tap();
  await expect(second.page.getByTestId('race-ready-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expect(second.page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(fr, 2, 2));
  await expect(first.page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(en, 2, 2));
  // Each page measures its latency every 2 s and the server shares it: Race Control shows both
  // pilots' pings; a driver's page shows one ping, its own control link's (issue 41).
  await expect(admin.getByTestId('race-participants').locator('[data-tone]')).toHaveCount(2);
  await expect(first.page.getByTestId('ping')).toHaveCount(1);
  await expect(first.page.getByTestId('race-participants').locator('[data-tone]')).toHaveCount(0);
  await screenshot(first.page, testInfo, 'race-lobby');

  // The admin sees the ready lobby and starts the race: the countdown shows on the drivers' video.
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'lobby');
  await expect(admin.getByTestId('admin-race-ready-count')).toHaveText(lobbyCount(en, 2, 2));
  // Asked first (issue 41): both pilots are ready.
  await admin.getByTestId('race-start').click();
  const startConfirm = admin.getByRole('dialog', { name: en.raceControl.startConfirm.title });
  await expect(startConfirm).toContainText(fill(en.raceControl.startConfirm.allReady_other, { count: 2 }));
  await startConfirm.getByRole('button', { name: en.raceControl.start, exact: true }).click();
  await expect(first.page.getByTestId('race-countdown')).toHaveText(/^[1-6]$/);
  await expect(second.page.getByTestId('race-countdown')).toHaveText(/^[1-6]$/);
  expect(await inFullScreen(second.page, 'race-countdown')).toBe(true);
  // The number stays in the picture's upper third, on a desktop and on a phone held sideways in
  // full screen alike: the car and the road ahead of it stay in sight (issue 41).
  for (const { page } of drivers) {
    const number = await page.getByTestId('race-countdown').boundingBox();
    const picture = await page.getByTestId('video-area').boundingBox();
    if (!number || !picture) throw new Error('the countdown or the picture is not on screen');
    expect(number.y + number.height).toBeLessThanOrEqual(picture.y + picture.height / 3 + 1);
  }
  // The overlays' colours and names are axe-checked on the phone; the desktop's page in the lobby.
  await inBothThemes(first.page, testInfo, 'race-countdown-en-desktop', { axe: false });
  await inBothThemes(second.page, testInfo, 'race-countdown-fr-phone-full-screen');

  for (const { page } of drivers) {
    await expect(page.getByTestId('race-overlay')).toHaveAttribute('data-status', 'active');
    await expect(page.getByTestId('race-timer')).toHaveText(/^0[01]:\d\d$/);
  }
  expect(await inFullScreen(second.page, 'race-timer')).toBe(true);
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'active');

  // Full throttle only (the steering assist takes each car round the track): W on the desktop,
  // a thumb held up on the throttle stick over the video on the phone, in full screen.
  await first.page.keyboard.down('w');
  const lift = await holdTouch(second.page, second.page.getByTestId('joystick-throttle'), { x: 0.5, y: 0.1 });
  await expect.poll(() => speed(second.page), { timeout: 10_000 }).toBeGreaterThan(1);
  const board = first.page.getByTestId('live-leaderboard');
  /** The fewest laps any of the two drivers has on the first driver's live leaderboard. */
  const fewestLaps = async () => {
    const laps = await lapsShown(board);
    return Math.min(...names.map((name) => laps[name] ?? 0));
  };
  await expect
    .poll(fewestLaps, { timeout: FIRST_LAP_TIMEOUT_MS, intervals: [500] })
    .toBeGreaterThanOrEqual(1);
  // The phone's full-screen leaderboard: both drivers, names whole, with their laps.
  const phoneBoard = second.page.getByTestId('race-overlay-leaderboard');
  for (const name of names) await expect(phoneBoard.locator(`[data-driver="${name}"]`)).toBeVisible();
  expect(await inFullScreen(second.page, 'race-overlay-leaderboard')).toBe(true);
  await inBothThemes(first.page, testInfo, 'race-live-leaderboard-en-desktop', { axe: false });
  await inBothThemes(second.page, testInfo, 'race-live-leaderboard-fr-phone-full-screen');
  // The admin's tab shows the same race live.
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'active');
  for (const name of names) await expect(admin.getByTestId('live-leaderboard')).toContainText(name);
  await screenshot(admin, testInfo, 'race-control-tab');

  // Janus crashes mid-race (SIGKILL): its supervisor starts it again and puts the mountpoints and
  // PINs back, the desktop driver's player watches again by itself, and the cars drive on (the
  // control path does not go through Janus). docs/reliability.md, fault 3.
  expect((await videoStats(first.page)).state).toBe('playing');
  const janus = janusPidsOf(E2E_RACE_URL);
  expect(janus).toHaveLength(1);
  const killedAt = Date.now();
  process.kill(janus[0] as number, 'SIGKILL');
  const speedsMeanwhile: number[] = [];
  let dropped = false;
  await expect
    .poll(
      async () => {
        speedsMeanwhile.push(await speed(second.page));
        const { state, framesDecoded } = await videoStats(first.page);
        dropped ||= state !== 'playing';
        return dropped && state === 'playing' && framesDecoded > 0;
      },
      { timeout: 15_000, intervals: [100] },
    )
    .toBe(true);
  const watchingAgainMs = Date.now() - killedAt;
  console.info(`Janus SIGKILL → the driver's video playing again: ${watchingAgainMs} ms`);
  expect(watchingAgainMs).toBeLessThanOrEqual(JANUS_RECOVERY_BOUND_MS);
  expect(janusPidsOf(E2E_RACE_URL)).toHaveLength(1);
  // The phone's car drove on at full throttle throughout.
  expect(Math.min(...speedsMeanwhile)).toBeGreaterThan(1);

  await expect
    .poll(fewestLaps, { timeout: SECOND_LAP_TIMEOUT_MS, intervals: [500] })
    .toBeGreaterThanOrEqual(2);

  // The admin ends the race (after confirming): both drivers are told and go home.
  await admin.getByTestId('race-end').click();
  const confirm = admin.getByRole('dialog', { name: en.raceControl.endTitle });
  await confirm.getByRole('button', { name: en.raceControl.end, exact: true }).click();
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'idle');
  await first.page.keyboard.up('w');
  await lift();
  for (const { page, alerts, t } of drivers) {
    await expect(page).toHaveURL(/\/$/);
    await expect.poll(() => alerts).toEqual([t.control.forceDisconnect.race_ended]);
  }

  // Home holds each driver's result (issue 41): their position of the two, laps, best lap, the
  // podium, that Race Control ended it early, and the race's page.
  const HOME_SIZES = [
    { size: 'phone-360', viewport: { width: 360, height: 740 } },
    { size: 'phone-sideways', viewport: PHONE_SIDEWAYS.viewport },
    { size: 'desktop', viewport: DESKTOP.viewport },
  ];
  const positions: string[] = [];
  for (const { page, t, member } of drivers) {
    const result = page.getByTestId('last-race');
    await expect(result).toBeVisible();
    await expect(result.getByTestId('last-race-note')).toHaveText(t.pages.home.lastRace.endedEarly);
    const position = (await result.getByTestId('last-race-position').textContent()) ?? '';
    expect(position).toMatch(/^[12] \/ 2$/);
    positions.push(position);
    expect(Number(await result.getByTestId('last-race-laps').textContent())).toBeGreaterThanOrEqual(2);
    await expect(result.getByTestId('last-race-best-lap')).toHaveText(/^\d+[.,]\d\d s$/);
    const podium = result.getByTestId('last-race-podium').getByRole('listitem');
    await expect(podium).toHaveCount(2);
    await expect(podium.filter({ hasText: member.username })).toContainText(`(${t.pages.home.lastRace.you})`);
    expect(await seriousA11yViolations(page, { within: '[data-testid="last-race"]' })).toEqual([]);
    // The first driver's home in English and dark, the second's in French and light, each size.
    const language = t === fr ? 'fr' : 'en';
    const theme = language === 'fr' ? 'light' : 'dark';
    // Signed in, the page took the member's saved theme (dark for a new member).
    await switchTheme(page, theme);
    for (const { size, viewport } of HOME_SIZES) {
      await page.setViewportSize(viewport);
      await screenshot(page, testInfo, `home-last-race-${language}-${size}-${theme}`, { fullPage: false });
    }
  }
  // One of them won, the other came second.
  expect(positions.sort()).toEqual(['1 / 2', '2 / 2']);
  // Folded on the phone: one line and the same link.
  await second.page.setViewportSize({ width: 360, height: 740 });
  await second.page.getByRole('button', { name: fr.pages.home.lastRace.fold }).tap();
  const reminder = second.page.getByTestId('last-race-reminder');
  await expect(reminder.getByRole('link', { name: fr.pages.home.lastRace.seeRace })).toBeFocused();
  await screenshot(second.page, testInfo, 'home-last-race-folded-fr-phone-360-light', { fullPage: false });
  // The link leads to the race's page.
  const raceId = await first.page.getByTestId('last-race').getAttribute('data-race-id');
  await first.page.getByRole('link', { name: en.pages.home.lastRace.seeRace }).click();
  await expect(first.page).toHaveURL(new RegExp(`/races/${raceId}$`));
  await expect(
    first.page.getByRole('heading', { name: fill(en.racePage.title, { id: raceId ?? '' }) }),
  ).toBeVisible();

  // The leaderboards: both drivers all time and in season 0.
  const { page } = first;
  await page.goto('/leaderboards');
  const allTime = page.getByRole('region', { name: en.leaderboards.allTimeCaption });
  for (const name of names) await expect(allTime).toContainText(name);
  await page.getByRole('tab', { name: fill(en.leaderboards.tabs.season, { season: 0 }) }).click();
  const season = page.getByRole('region', { name: fill(en.leaderboards.seasonCaption, { season: 0 }) });
  for (const name of names) await expect(season).toContainText(name);

  // The driver's own history holds the race, which opens on its page with a line per driver.
  await page.getByRole('tab', { name: en.leaderboards.tabs.history }).click();
  const history = page.getByRole('region', { name: en.leaderboards.historyCaption });
  const raceLink = history.getByRole('link', {
    name: new RegExp(`^${fill(en.leaderboards.openRace, { id: '\\d+' })}$`),
  });
  await expect(raceLink).toHaveCount(1);
  await raceLink.click();
  await expect(page).toHaveURL(/\/races\/\d+$/);
  const chart = page.getByTestId('race-chart');
  await expect(chart).toBeVisible();
  const series = chart.getByTestId('race-chart-series');
  await expect(series).toHaveCount(2);
  expect(
    (await series.evaluateAll((lines) => lines.map((l) => l.getAttribute('data-driver')))).sort(),
  ).toEqual([...names].sort());
  await screenshot(page, testInfo, 'race-chart');

  // The boards and the race's page arrive as HTML (issue 45): before any script, or without one,
  // a viewer reads the first rows and the race's drivers, in their language.
  for (const { locale, t } of [
    { locale: 'en-GB', t: en },
    { locale: 'fr-FR', t: fr },
  ]) {
    const context = await browser.newContext({ baseURL: E2E_RACE_URL, locale, javaScriptEnabled: false });
    const viewer = await context.newPage();
    await viewer.goto('/leaderboards');
    const board = viewer.getByRole('region', { name: t.leaderboards.allTimeCaption });
    for (const name of names) await expect(board).toContainText(name);
    await viewer.goto(`/races/${raceId}`);
    await expect(viewer.getByRole('heading', { level: 1 })).toHaveText(
      fill(t.racePage.title, { id: raceId ?? '' }),
    );
    for (const name of names) await expect(viewer.getByRole('main')).toContainText(name);
    await screenshot(viewer, testInfo, `race-page-no-js-${locale}`);
    await context.close();
  }

  for (const context of [...drivers.map((d) => d.context), adminContext]) await context.close();
});
