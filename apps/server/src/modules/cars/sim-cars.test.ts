/**
 * SIM_CARS with the REAL car agent (apps/car, run from source as a child process): provisioning,
 * the printed codes, drive reaching the agent (its simulated speed comes back as telemetry),
 * the restart after a simulated reboot, and the children stopping with the server.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cars } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildAdmin, buildUser, tokenFor } from '../../test/factories.js';
import { controllerUrl, listen, openSocket, originOf } from '../../test/sockets.js';
import { hashToken } from '../../tokens.js';
import { SIM_CARS_FILE, type SimCar } from './sim-cars.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let host: string;
let simCars: SimCar[];
let banner = '';
beforeAll(async () => {
  testApp = await startTestApp({ SIM_CARS: '1' });
  host = await listen(testApp.app);
  simCars = await testApp.app.startSimCars((text) => {
    banner += text;
  });
}, 60_000);
afterAll(async () => {
  const pid = simCars?.[0] ? testApp.app.simCarChild(simCars[0].id)?.pid : undefined;
  await testApp?.close();
  // The agents stop with the server.
  if (pid !== undefined) expect(() => process.kill(pid, 0)).toThrow();
});

describe('SIM_CARS with the real car agent', () => {
  it('provisions "Sim 1", keeps its secret in DATA_DIR (0600) and prints its code', async () => {
    const { app } = testApp;
    expect(simCars).toHaveLength(1);
    const [sim] = simCars;
    expect(sim?.name).toBe('Sim 1');
    expect(banner).toContain(`Sim 1`);
    expect(banner).toContain(sim?.code ?? '-');
    const file = join(testApp.config.dataDir, SIM_CARS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const admin = await buildAdmin(app.database.db);
    const list = await app.inject({
      method: 'GET',
      url: '/api/admin/cars',
      headers: await authHeader(app, admin),
    });
    const car = (list.json() as { id: number; control_code: string }[]).find((c) => c.id === sim?.id);
    expect(car?.control_code).toBe(sim?.code);
    const [row] = await app.database.db
      .select()
      .from(cars)
      .where(eq(cars.id, sim?.id ?? 0));
    expect(row?.secretHash).toBe(hashToken(saved[String(sim?.id)] ?? ''));
  });

  it('the agent comes online; drive from a controller reaches it (its simulated speed comes back)', async () => {
    const { app } = testApp;
    const sim = simCars[0] as SimCar;
    await expect.poll(() => app.carRelay.isOnline(sim.id), { timeout: 30_000, interval: 200 }).toBe(true);
    const driver = await buildUser(app.database.db);
    const connect = await app.inject({
      method: 'POST',
      url: `/api/cars/${sim.id}/connect`,
      headers: await authHeader(app, driver),
      payload: { code: sim.code },
    });
    expect(connect.statusCode, connect.body).toBe(200);
    const controller = await openSocket(
      controllerUrl(host, sim.id, await tokenFor(app, driver), connect.json().controlToken),
      originOf(app),
    );
    const pump = setInterval(() => controller.send({ type: 'drive', throttle: 1, steer: 0 }), 50);
    try {
      const moving = await controller.next(
        (m) => m.type === 'telemetry' && Number((m.telemetry as { speed?: number }).speed ?? 0) > 0,
        15_000,
      );
      expect(moving).toBeTruthy();
    } finally {
      clearInterval(pump);
    }
    await controller.close();
  });

  it('a reboot command makes the agent exit 75; the supervisor starts it again', async () => {
    const { app } = testApp;
    const sim = simCars[0] as SimCar;
    const admin = await buildAdmin(app.database.db);
    const before = app.simCarChild(sim.id)?.pid;
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${sim.id}/command`,
      headers: await authHeader(app, admin),
      payload: { command: 'reboot' },
    });
    expect(response.statusCode).toBe(200);
    await expect
      .poll(() => app.simCarChild(sim.id)?.pid, { timeout: 15_000, interval: 100 })
      .not.toBe(before);
    await expect.poll(() => app.carRelay.isOnline(sim.id), { timeout: 30_000, interval: 200 }).toBe(true);
  });
});
