/**
 * A whole race in the browser (issue 12): two members, each in a browser context of their own,
 * take the simulated cars Sim 4 and Sim 5 with a code, join the race from their control pages and
 * mark themselves ready; an admin starts the race from the Race Control tab; after the countdown
 * both hold W (the sim car's steering assist keeps them on the track) until the live leaderboard
 * shows two completed laps each (so the chart draws lines, not dots); the admin ends the race, both drivers are told and sent home, and
 * the race is on the leaderboards, in a driver's race history and on its own page with one chart
 * line per driver.
 *
 * The race is the server's global state and the other tests run beside this one: the whole race
 * is this one test, and no other test needs the race to be idle.
 */
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  test,
} from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config.js';
import {
  acceptCookies,
  adminToken,
  carWithCode,
  fill,
  logIn,
  type Member,
  newMember,
  screenshot,
  signUp,
  translations,
} from './support.js';

const { en } = translations();

/**
 * A lap of the default sim track (about 25 m at up to 3 m/s) takes a little over 8 s, and the
 * first pass of the finish line (1 m ahead of the start) only starts lap 1: two laps take about
 * 17 s of driving. The waits are generous for a busy 2-core machine yet end well within the
 * 1-minute race, which must still be running when the admin ends it.
 */
const FIRST_LAP_TIMEOUT_MS = 30_000;
const SECOND_LAP_TIMEOUT_MS = 25_000;

interface Driver {
  member: Member;
  context: BrowserContext;
  page: Page;
  /** The alerts the page showed (window.alert), accepted as a person would. */
  alerts: string[];
}

/** A member signed up and logged in in a browser context of their own, on their car's control page. */
async function driverOn(browser: Browser, request: APIRequestContext, tag: string, carName: string) {
  const member = newMember(tag);
  await signUp(request, member);
  const car = await carWithCode(request, carName);
  const context = await browser.newContext();
  await acceptCookies(context);
  const page = await context.newPage();
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  await logIn(page, member.email, member.password);
  await page.goto('/car-selection');
  await page.getByTestId(`car-${car.id}`).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(en.cars.codeLabel).pressSequentially(car.code.toLowerCase());
  await dialog.getByRole('button', { name: en.cars.connect, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/control/${car.id}/\\d+$`));
  await expect(page.getByTestId('connection-state')).toHaveText(en.control.connection.connected);
  return { member, context, page, alerts } satisfies Driver;
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

const lobbyCount = (ready: number, total: number) => fill(en.race.lobby.readyCount, { ready, total });

// A whole minute of racing plus two drivers' set-up: 1.8 min on a loaded 2-core CI run.
test.describe.configure({ timeout: 240_000 });

test('two drivers and an admin run a whole race, from the lobby to the race chart', async ({
  browser,
  request,
}, testInfo) => {
  // Short races for a test: 3 s countdown, 1 min race, 3 s minimum lap (the server is fresh for
  // every run, so nothing is restored).
  const settings = await request.patch('/api/admin/settings', {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
    data: { race_countdown_seconds: 3, race_length_minutes: 1, min_lap_time_seconds: 3 },
  });
  expect(settings.status(), await settings.text()).toBe(200);

  const drivers: Driver[] = [
    await driverOn(browser, request, 'racerA', 'Sim 4'),
    await driverOn(browser, request, 'racerB', 'Sim 5'),
  ];
  const names = drivers.map((d) => d.member.username);

  const adminContext = await browser.newContext();
  await acceptCookies(adminContext);
  const admin = await adminContext.newPage();
  await logIn(admin, E2E_ADMIN.email, E2E_ADMIN.password);
  await admin.goto('/admin?tab=race-control');
  await expect(admin.getByTestId('admin-race-status')).toBeVisible();

  // The lobby: each driver joins from the control page, then says they are ready.
  for (const { page } of drivers) {
    await page.getByTestId('race-join').click();
    await expect(page.getByTestId('race-panel')).toHaveAttribute('data-status', 'lobby');
    await expect(page.getByTestId('race-ready-toggle')).toBeVisible();
  }
  for (const { page } of drivers) {
    await expect(page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(0, 2));
    await expect(page.getByTestId('race-participants')).toContainText(names[0] ?? '');
    await expect(page.getByTestId('race-participants')).toContainText(names[1] ?? '');
  }
  for (const [index, { page }] of drivers.entries()) {
    await page.getByTestId('race-ready-toggle').click();
    await expect(page.getByTestId('race-ready-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(index + 1, 2));
  }
  const [first, second] = drivers as [Driver, Driver];
  await expect(second.page.getByTestId('race-lobby-count')).toHaveText(lobbyCount(2, 2));
  // Each page measures its latency every 2 s and the server shares it: both pilots show a ping.
  await expect(first.page.getByTestId('race-participants').locator('[data-tone]')).toHaveCount(2);
  await screenshot(first.page, testInfo, 'race-lobby');

  // The admin sees the ready lobby and starts the race: the countdown shows on the drivers' video.
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'lobby');
  await expect(admin.getByTestId('admin-race-ready-count')).toHaveText(lobbyCount(2, 2));
  await admin.getByTestId('race-start').click();
  await expect(first.page.getByTestId('race-countdown')).toHaveText(/^[1-3]$/);
  await screenshot(first.page, testInfo, 'race-countdown');

  for (const { page } of drivers) {
    await expect(page.getByTestId('race-panel')).toHaveAttribute('data-status', 'active');
    await expect(page.getByTestId('race-timer')).toHaveText(/^0[01]:\d\d$/);
  }
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'active');

  // Full throttle only: the steering assist takes each car round the track.
  for (const { page } of drivers) await page.keyboard.down('w');
  const board = first.page.getByTestId('live-leaderboard');
  /** The fewest laps any of the two drivers has on the first driver's live leaderboard. */
  const fewestLaps = async () => {
    const laps = await lapsShown(board);
    return Math.min(...names.map((name) => laps[name] ?? 0));
  };
  await expect
    .poll(fewestLaps, { timeout: FIRST_LAP_TIMEOUT_MS, intervals: [500] })
    .toBeGreaterThanOrEqual(1);
  await screenshot(first.page, testInfo, 'race-live-leaderboard');
  // The admin's tab shows the same race live.
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'active');
  for (const name of names) await expect(admin.getByTestId('live-leaderboard')).toContainText(name);
  await screenshot(admin, testInfo, 'race-control-tab');
  await expect
    .poll(fewestLaps, { timeout: SECOND_LAP_TIMEOUT_MS, intervals: [500] })
    .toBeGreaterThanOrEqual(2);

  // The admin ends the race (after confirming): both drivers are told and go home.
  await admin.getByTestId('race-end').click();
  const confirm = admin.getByRole('dialog', { name: en.raceControl.endTitle });
  await confirm.getByRole('button', { name: en.raceControl.end, exact: true }).click();
  await expect(admin.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'idle');
  for (const { page, alerts } of drivers) {
    await page.keyboard.up('w');
    await expect(page).toHaveURL(/\/$/);
    await expect.poll(() => alerts).toEqual([en.control.forceDisconnect.race_ended]);
  }

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

  for (const context of [...drivers.map((d) => d.context), adminContext]) await context.close();
});
