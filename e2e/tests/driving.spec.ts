/**
 * Driving a simulated car for real: the server runs three car-agent processes (SIM_CARS=3) whose
 * simulated speed comes back as telemetry and whose simulated camera streams through the server's
 * own Janus. A member connects with a code, watches the live video and drives with the keyboard;
 * an admin lowers a car's forward speed and the car itself applies the limit; on a phone, a thumb
 * on the throttle stick drives.
 */

import { E2E_ADMIN } from '../playwright.config.js';
import { expect, type Page, test } from './fixtures.js';
import {
  acceptCookies,
  carWithCode,
  connectWithCode,
  framesDecoded,
  freeCar,
  holdTouch,
  logIn,
  newMember,
  screenshot,
  signUp,
  speed,
  translations,
} from './support.js';

const { en } = translations();

/**
 * The picture below the timestamp strip, shrunk to 64×48 grey levels: what the driver sees of the
 * track, without the rows that change on every frame anyway.
 */
async function picture(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const video = document.querySelector('[data-testid="video"]') as HTMLVideoElement;
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 48;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('no 2d context');
    const skip = Math.ceil(video.videoHeight * 0.1);
    context.drawImage(video, 0, skip, video.videoWidth, video.videoHeight - skip, 0, 0, 64, 48);
    const { data } = context.getImageData(0, 0, 64, 48);
    const grey: number[] = [];
    for (let i = 0; i < data.length; i += 4)
      grey.push(Math.round(((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0)) / 3));
    return grey;
  });
}

/** Mean absolute difference of two pictures, in grey levels (0–255). */
function difference(a: number[], b: number[]): number {
  return a.reduce((sum, value, i) => sum + Math.abs(value - (b[i] ?? 0)), 0) / a.length;
}

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

// Driving tests log in, connect and drive: more steps than most, so more time on a busy machine.
test.describe.configure({ timeout: 90_000 });

test('a member connects with a code, watches the live video and drives with the keyboard', async ({
  page,
  request,
}, testInfo) => {
  const member = newMember('driver');
  await signUp(request, member);
  const car = await carWithCode(request, 'Sim 1');
  await logIn(page, member.email, member.password);
  await connectWithCode(page, car);

  // Reloaded, the control page plays the car's camera: 30 frames really decoded. How soon (5 s is
  // the bar) is measured by `npm run bench -- video` on a quiet machine, not asserted here.
  await page.reload();
  // The first ping figure is measured once the page is idle, not while it loads (545 ms was
  // shown there on a desktop): on loopback it is under 150 ms.
  const ping = page.getByTestId('ping');
  await expect(ping).toHaveAttribute('data-tone', /^(good|fair|poor)$/);
  expect(Number(/\d+/.exec((await ping.textContent()) ?? '')?.[0])).toBeLessThan(150);
  await expect.poll(() => framesDecoded(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(30);
  await expect(page.getByTestId('video')).toHaveAttribute('data-state', 'playing');
  await expect(page.getByTestId('connection-state')).toHaveText(en.control.connection.connected);
  // The car reports the frames its camera really sends.
  // Its rate and the picture's height (issue 43: and the bitrate, when lowered for its uplink).
  await expect(page.getByTestId('telemetry-fps')).toHaveText(/^[1-9]\d* fps · \d+p$/);
  const still = await picture(page);
  // Fifteen frames later (half a second of the camera's own clock), the standing car's picture.
  const decoded = await framesDecoded(page);
  await expect.poll(() => framesDecoded(page)).toBeGreaterThanOrEqual(decoded + 15);
  const stillLater = await picture(page);
  await screenshot(page, testInfo, 'video-still');

  await page.keyboard.down('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeGreaterThan(1);
  // Moving, the track slides under the car: the picture changes far more than a still one does.
  await expect
    .poll(async () => difference(still, await picture(page)), { timeout: 5_000 })
    .toBeGreaterThan(Math.max(4, 3 * difference(still, stillLater)));
  await screenshot(page, testInfo, 'driving');
  await page.keyboard.up('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeLessThan(0.1);

  // Back on the car list, the car shows as this member's.
  await page.goto('/car-selection');
  await expect(page.getByTestId(`car-${car.id}`)).toContainText(en.cars.yours);
  await freeCar(request, car.id);
});

test('an admin lowers the forward speed and the car applies it', async ({ page, request }, testInfo) => {
  const car = await carWithCode(request, 'Sim 2');
  await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await connectWithCode(page, car);

  await page.getByRole('button', { name: new RegExp(en.control.settings.title) }).click();
  const forward = page.getByLabel(en.control.settings.forward);
  await forward.focus();
  await page.keyboard.press('Home');
  await page.getByRole('button', { name: en.control.settings.save, exact: true }).click();
  await expect(page.getByText(en.control.settings.saved)).toBeVisible();
  await screenshot(page, testInfo, 'car-settings');

  // Full throttle for a while: the car never goes faster than 20 % of its top speed (3 m/s).
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.down('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeGreaterThan(0.3);
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(await speed(page));
    await page.waitForTimeout(200);
  }
  await page.keyboard.up('w');
  expect(Math.max(...samples)).toBeLessThan(0.8);
  await freeCar(request, car.id);
});

/**
 * A phone (touch, 390×844) in the light theme: the page fits the screen, the video plays, and the
 * throttle stick, held up by a real touch, drives the car. The desktop project skips it (@phone).
 */
test('on a phone, a member drives with a thumb on the throttle stick @phone', async ({
  page,
  request,
}, testInfo) => {
  const member = newMember('thumb');
  await signUp(request, member);
  // The member prefers the light theme: the page takes it when the session starts.
  const login = await request.post('/api/login', {
    data: { email: member.email, password: member.password, recaptchaToken: '' },
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const theme = await request.patch('/api/me/theme', {
    data: { preferred_theme: 'light' },
    headers: { authorization: `Bearer ${accessToken}` },
  });
  expect(theme.status()).toBe(200);
  const car = await carWithCode(request, 'Sim 3');
  await logIn(page, member.email, member.password);
  await connectWithCode(page, car);

  await expect.poll(() => framesDecoded(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(30);
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  expect(fits).toBe(true);

  // The page joined the race lobby by itself (no race runs on this server).
  await expect(page.getByTestId('race-lobby-count')).toBeVisible();

  const stick = page.getByTestId('joystick-throttle');
  await stick.scrollIntoViewIfNeeded();
  // A thumb down on the knob, slid to the top of the pad and held.
  const lift = await holdTouch(page, stick, { x: 0.5, y: 0.1 });
  await expect(stick).toHaveAttribute('aria-valuenow', '100');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeGreaterThan(1);
  await screenshot(page, testInfo, 'phone-driving');

  await lift();
  await expect(stick).toHaveAttribute('aria-valuenow', '0');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeLessThan(0.1);
  await freeCar(request, car.id);
});
