/**
 * Driving a simulated car for real: the server runs two car-agent processes (SIM_CARS=2) whose
 * simulated speed comes back as telemetry. A member connects with a code and drives with the
 * keyboard; an admin lowers a car's forward speed and the car itself applies the limit.
 */
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config.js';
import { acceptCookies, logIn, newMember, screenshot, signUp, translations } from './support.js';

const { en } = translations();

async function adminToken(request: APIRequestContext): Promise<string> {
  const response = await request.post('/api/login', { data: { ...E2E_ADMIN, recaptchaToken: '' } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

/** A simulated car by name, once its agent is connected, and a fresh control code for it. */
async function carWithCode(request: APIRequestContext, name: string): Promise<{ id: number; code: string }> {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
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
  const response = await request.post(`/api/admin/cars/${id}/generate_code`, { headers });
  return { id, code: ((await response.json()) as { code: string }).code };
}

/** The speed the car reports, as shown on the control page (m/s). */
async function speed(page: Page): Promise<number> {
  const text = (await page.getByTestId('telemetry-speed').textContent()) ?? '';
  return Number.parseFloat(text.replace(',', '.')) || 0;
}

async function connect(page: Page, car: { id: number; code: string }): Promise<void> {
  await page.goto('/car-selection');
  await page.getByTestId(`car-${car.id}`).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(en.cars.codeLabel).pressSequentially(car.code.toLowerCase());
  await expect(dialog.getByLabel(en.cars.codeLabel)).toHaveValue(car.code);
  await dialog.getByRole('button', { name: en.cars.connect, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/control/${car.id}/\\d+$`));
  await expect(page.getByTestId('connection-state')).toHaveText(en.control.connection.connected);
}

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test('a member connects with a code and drives with the keyboard', async ({ page, request }, testInfo) => {
  const member = newMember('driver');
  await signUp(request, member);
  const car = await carWithCode(request, 'Sim 1');
  await logIn(page, member.email, member.password);
  await connect(page, car);

  await page.keyboard.down('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeGreaterThan(1);
  await screenshot(page, testInfo, 'driving');
  await page.keyboard.up('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeLessThan(0.1);

  // Back on the car list, the car shows as this member's.
  await page.goto('/car-selection');
  await expect(page.getByTestId(`car-${car.id}`)).toContainText(en.cars.yours);
});

test('an admin lowers the forward speed and the car applies it', async ({ page, request }, testInfo) => {
  const car = await carWithCode(request, 'Sim 2');
  await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await connect(page, car);

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
});
