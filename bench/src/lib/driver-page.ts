/**
 * A browser context logged in as the simulated car's driver, as the connect dialog leaves it: the
 * refresh cookie in the jar, the control token and the video PIN in session storage. The video
 * benches open the control page in it (`/control/<car>/<stream>`).
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { api, BENCH_ADMIN, logInAdmin } from './telerace-api.js';

/** The simulated car "Sim 1" once its agent is connected. */
async function simCar(base: string, token: string): Promise<{ id: number; streamId: number }> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const cars = await api<{ id: number; name: string; status: string; stream_id: number }[]>(
      base,
      '/admin/cars',
      { token },
    );
    const car = cars.find((c) => c.name === 'Sim 1' && c.status === 'online');
    if (car) return { id: car.id, streamId: car.stream_id };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the simulated car did not come online');
}

export interface DriverContext {
  context: BrowserContext;
  /** The car's control page, relative to the context's base URL. */
  controlPath: string;
}

/** The server's admin takes "Sim 1" with a code, in a new context of `browser` (SIM_CARS=1, the bench admin). */
export async function driverContext(browser: Browser, base: string): Promise<DriverContext> {
  const accessToken = await logInAdmin(base);
  const car = await simCar(base, accessToken);
  const { code } = await api<{ code: string }>(base, `/admin/cars/${car.id}/generate_code`, {
    method: 'POST',
    token: accessToken,
  });

  const context = await browser.newContext({ baseURL: base });
  // tsx (esbuild keepNames) wraps named functions in `__name(…)`; the page functions need it too.
  await context.addInitScript({ content: 'globalThis.__name = (target) => target;' });
  await context.addCookies([{ name: 'telerace_cookie_consent', value: '1', url: base }]);
  // Logged in as the browser would be: the refresh cookie lands in the context's jar.
  const login = await context.request.post('/api/login', { data: { ...BENCH_ADMIN, recaptchaToken: '' } });
  if (!login.ok()) throw new Error(`login: HTTP ${login.status()}`);
  const { accessToken: browserToken } = (await login.json()) as { accessToken: string };
  const connect = await context.request.post(`/api/cars/${car.id}/connect`, {
    data: { code },
    headers: { authorization: `Bearer ${browserToken}` },
  });
  if (!connect.ok()) throw new Error(`connect: HTTP ${connect.status()} ${await connect.text()}`);
  const connected = (await connect.json()) as {
    controlToken: string;
    car: { video?: { pin: string | null } };
  };
  // What the connect dialog keeps for the control page: the control token and the video PIN.
  await context.addInitScript(
    ({ id, token, pin }) => {
      sessionStorage.setItem(`controlToken:${id}`, token);
      if (pin) sessionStorage.setItem(`videoPin:${id}`, pin);
    },
    { id: car.id, token: connected.controlToken, pin: connected.car.video?.pin ?? null },
  );
  return { context, controlPath: `/control/${car.id}/${car.streamId}` };
}
