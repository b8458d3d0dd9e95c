/**
 * Race Control before a race with a car whose laps the lap counter cannot count (issue 40 §13).
 * The main server counts laps with `LAP_COUNTER=car`; a real car without a lap sensor (its agent
 * played here by a car socket speaking the protocol by hand, saying in its hello that it reports
 * no crossings) is taken by a driver who joins the lobby. The admin sees the warning in English
 * and in French, in both themes, on a desktop and at 360 px, and Start race, pressed from the
 * keyboard, asks for a confirmation, which the admin cancels: the main server's lobby is the
 * driving tests' too, so no race starts here. The car is deleted at the end (its driver leaves).
 */

import WebSocket from 'ws';
import { E2E_ADMIN } from '../playwright.config.js';
import { type APIRequestContext, expect, type Page, type TestInfo, test } from './fixtures.js';
import {
  acceptCookies,
  adminToken,
  fill,
  inBothThemes,
  logIn,
  newMember,
  screenshot,
  signUp,
  switchTheme,
  translations,
} from './support.js';

const { en, fr } = translations();

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The next message of `type` on the socket (its JSON). */
function nextMessage(socket: WebSocket, type: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (message.type !== type) return;
      socket.off('message', onMessage);
      resolve(message);
    };
    socket.on('message', onMessage);
    socket.once('error', reject);
  });
}

/** A socket on the server under test, `ws://` on its host. */
function openSocket(baseURL: string, path: string, options: WebSocket.ClientOptions): WebSocket {
  return new WebSocket(`${baseURL.replace(/^http/, 'ws')}${path}`, options);
}

/**
 * A new car whose agent, connected and welcomed, says it reports no crossings (a real car's
 * hardware drive); a new member holds it and joins the race lobby on the event socket.
 */
async function laplessCarInLobby(request: APIRequestContext, baseURL: string, name: string) {
  const admin = bearer(await adminToken(request));
  const created = await request.post('/api/admin/cars', { headers: admin, data: { name, image_url: null } });
  expect(created.status(), await created.text()).toBe(201);
  const { car, secret } = (await created.json()) as { car: { id: number }; secret: string };

  const agent = openSocket(baseURL, `/rcsocket?type=car&car=${car.id}`, { headers: bearer(secret) });
  const welcome = nextMessage(agent, 'welcome');
  agent.once('open', () =>
    agent.send(
      JSON.stringify({
        type: 'hello',
        protocolVersion: 1,
        agentVersion: 'e2e',
        capabilities: { passes: false },
      }),
    ),
  );
  await welcome;

  const driver = newMember('lapless');
  await signUp(request, driver);
  const login = await request.post('/api/login', {
    data: { email: driver.email, password: driver.password, recaptchaToken: '' },
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const code = await request.post(`/api/admin/cars/${car.id}/generate_code`, { headers: admin });
  const connected = await request.post(`/api/cars/${car.id}/connect`, {
    headers: bearer(accessToken),
    data: { code: ((await code.json()) as { code: string }).code },
  });
  expect(connected.status(), await connected.text()).toBe(200);

  // The event socket accepts the site's own origin only. The participant stays in the lobby
  // after the socket closes (its short-lived token): only the end of the car session removes it.
  const events = openSocket(baseURL, `/api/race-ws?token=${accessToken}`, { origin: baseURL });
  const joined = new Promise<void>((resolve) => {
    events.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        type: string;
        payload?: { participants: { carId: number }[] };
      };
      if (
        message.type === 'race_state_update' &&
        message.payload?.participants.some((p) => p.carId === car.id)
      )
        resolve();
    });
  });
  events.once('open', () => events.send(JSON.stringify({ type: 'join_lobby', carId: car.id })));
  await joined;
  return { carId: car.id, sockets: [agent, events] };
}

/** The Race Control tab's participants, the warning in the middle of the screen (clear of the fixed top bar), in both themes. */
async function warningInBothThemes(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.getByTestId('uncounted-cars').evaluate((element) => element.scrollIntoView({ block: 'center' }));
  await inBothThemes(page, testInfo, name, { within: '#admin-panel-race-control' });
}

test('Race Control warns before the start about a car whose laps the lap counter cannot count', async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  const name = `Real ${Date.now().toString(36)}`;
  const { carId, sockets } = await laplessCarInLobby(request, baseURL ?? '', name);
  try {
    await acceptCookies(page.context());
    await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
    await page.goto('/admin?tab=race-control');
    const warning = page.getByTestId('uncounted-cars');
    await expect(warning).toContainText(fill(en.raceControl.uncounted.noPasses, { car: name, kind: 'car' }));
    // Only this car: the simulated cars of the driving tests, in the same lobby at times, report
    // their crossings.
    await expect(warning.getByRole('listitem')).toHaveCount(1);
    await warningInBothThemes(page, testInfo, 'race-control-uncounted-desktop');

    // Start race from the keyboard: a confirmation naming the car, cancelled with Escape.
    const start = page.getByTestId('race-start');
    await start.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: en.raceControl.startConfirm.titleAnyway });
    await expect(dialog).toContainText(name);
    await expect(dialog.getByRole('button', { name: en.raceControl.startAnyway })).toBeVisible();
    await screenshot(page, testInfo, 'race-control-start-confirmation-desktop', { fullPage: false });
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(start).toBeFocused();
    await expect(page.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'lobby');

    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto('/admin?tab=race-control&lng=fr');
    await expect(page.getByTestId('uncounted-cars')).toContainText(
      fill(fr.raceControl.uncounted.noPasses, { car: name, kind: 'car' }),
    );
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, 'no sideways scrolling at 360 px').toBeLessThanOrEqual(360);
    await warningInBothThemes(page, testInfo, 'race-control-uncounted-360-fr');
    await page.getByTestId('race-start').click();
    const confirmation = page.getByRole('dialog', { name: fr.raceControl.startConfirm.titleAnyway });
    await expect(confirmation).toContainText(name);
    await screenshot(page, testInfo, 'race-control-start-confirmation-360-fr', { fullPage: false });
    await confirmation.getByRole('button', { name: fr.raceControl.cancel }).click();
    await expect(confirmation).toBeHidden();

    // Start race always asks (issue 41): how many of the lobby's pilots are ready (this driver is
    // not), what starts, and the car that will not be counted; whole on a phone, held either way.
    for (const { size, viewport } of [
      { size: 'phone-360', viewport: { width: 360, height: 780 } },
      { size: 'phone-sideways', viewport: { width: 844, height: 390 } },
      { size: 'desktop', viewport: { width: 1280, height: 800 } },
    ]) {
      await page.setViewportSize(viewport);
      for (const { lng, t, theme } of [
        { lng: 'en', t: en, theme: 'dark' },
        { lng: 'fr', t: fr, theme: 'light' },
      ] as const) {
        await page.goto(`/admin?tab=race-control&lng=${lng}`);
        await expect(page.getByTestId('admin-race-status')).toHaveAttribute('data-status', 'lobby');
        // Once the session has loaded (it applies the account's theme).
        await switchTheme(page, theme);
        await page.getByTestId('race-start').click();
        const asked = page.getByRole('dialog', { name: t.raceControl.startConfirm.titleAnyway });
        await expect(asked.getByRole('status')).toBeVisible();
        await expect(asked).toContainText(t.raceControl.startConfirm.everyone);
        await expect(asked).toContainText(name);
        await expect(asked.getByTestId('race-start-confirm')).toBeInViewport({ ratio: 1 });
        await screenshot(page, testInfo, `race-control-start-confirm-${lng}-${size}-${theme}`, {
          fullPage: false,
        });
        await page.keyboard.press('Escape');
        await expect(asked).toBeHidden();
      }
    }
  } finally {
    for (const socket of sockets) socket.close();
    // The car goes, and its session with it: its driver leaves the lobby.
    const deleted = await request.delete(`/api/admin/cars/${carId}`, {
      headers: bearer(await adminToken(request)),
    });
    expect(deleted.status(), await deleted.text()).toBeLessThan(300);
  }
});
