/**
 * The members' car list and a car's status come from the car directory (memory), and each change
 * made through the real API shows in the very next answer: create, configure, delete, connect
 * with a code, kick, expiry, a driver's rename, the car going online and offline, sim cars.
 */

import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Car } from '@telerace/protocol';
import { CAR_SESSION_DEFAULT_MINUTES } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import { ManualClock } from '../../test/clock.js';
import { authHeader, buildUser, TEST_PASSWORD } from '../../test/factories.js';
import { connectCar, createCar, listen, takeCar } from '../../test/sockets.js';
import { provisionSimCars } from './sim-cars.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
let host: string;
let memberHeaders: { authorization: string };
/** Sessions end when this clock says so (tokens and sockets keep real time). */
const clock = new ManualClock();
beforeAll(async () => {
  testApp = await startTestApp({}, { clock });
  host = await listen(testApp.app);
  base = `http://${host}`;
  memberHeaders = await authHeader(testApp.app, await buildUser(testApp.app.database.db));
});
afterAll(() => testApp.close());

async function get(path: string, headers = memberHeaders): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, body: await response.json() };
}

async function listed(carId: number): Promise<Car | undefined> {
  const { status, body } = await get('/api/cars');
  expect(status).toBe(200);
  return (body as Car[]).find((car) => car.id === carId);
}

describe('car directory', () => {
  it('sends the list compressed once per change to clients that accept it, as the same JSON', async () => {
    for (let i = 0; i < 6; i++) await createCar(testApp.app, `Compressed ${i}`);
    const plain = await testApp.app.inject({ method: 'GET', url: '/api/cars', headers: memberHeaders });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      const packed = await testApp.app.inject({
        method: 'GET',
        url: '/api/cars',
        headers: { ...memberHeaders, 'accept-encoding': accept },
      });
      expect(packed.statusCode).toBe(200);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers.vary).toContain('accept-encoding');
      expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(decode(packed.rawPayload).toString())).toEqual(plain.json());
    }
  });

  it('answers the list and the status from memory', async () => {
    const { carId } = await createCar(testApp.app);
    const { stats } = testApp.app.cars.directory;
    const before = stats.answered;
    for (let i = 0; i < 5; i++) expect((await get('/api/cars')).status).toBe(200);
    expect((await get(`/api/cars/${carId}/status`)).status).toBe(200);
    expect(stats.answered - before).toBe(6);
  });

  it('a created car is listed at once, its new config shows, a deleted one is gone', async () => {
    const { carId, adminHeaders } = await createCar(testApp.app, 'Fresh one');
    expect(await listed(carId)).toMatchObject({
      name: 'Fresh one',
      status: 'offline',
      current_user_id: null,
      stream_id: 1000 + carId,
    });
    const config = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${carId}/config`,
      headers: adminHeaders,
      payload: { forwardSpeedPercent: 30, backwardSpeedPercent: 40, trimValue: -7 },
    });
    expect(config.statusCode).toBe(200);
    expect(await listed(carId)).toMatchObject({
      config_forward_speed: 30,
      config_backward_speed: 40,
      config_steering_trim: -7,
    });
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/api/admin/cars/${carId}`,
      headers: adminHeaders,
    });
    expect(deleted.statusCode).toBe(200);
    expect(await listed(carId)).toBeUndefined();
    expect((await get(`/api/cars/${carId}/status`)).status).toBe(404);
  });

  it('shows the driver after a connect, their new name after a rename, nobody after a kick', async () => {
    const driving = await createCar(testApp.app);
    const { driver, headers } = await takeCar(testApp.app, driving);
    expect(await listed(driving.carId)).toMatchObject({
      current_user_id: driver.id,
      username: driver.username,
      session_ends_at: expect.any(String),
    });
    expect((await get(`/api/cars/${driving.carId}/status`, headers)).body).toMatchObject({
      current_user_id: driver.id,
    });
    const renamed = await fetch(`${base}/api/me/details`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'Renamed driver', currentPassword: TEST_PASSWORD }),
    });
    expect(renamed.status).toBe(200);
    expect(await listed(driving.carId)).toMatchObject({ username: 'Renamed driver' });
    const kicked = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(kicked.statusCode).toBe(200);
    expect(await listed(driving.carId)).toMatchObject({
      current_user_id: null,
      username: null,
      session_ends_at: null,
    });
  });

  it('frees the car when its session expires', async () => {
    const driving = await createCar(testApp.app);
    const { driver } = await takeCar(testApp.app, driving);
    expect((await listed(driving.carId))?.current_user_id).toBe(driver.id);
    // A session past its end is not shown even before the sweep ends it…
    const later = clock.now().getTime() + 24 * 60 * 60_000;
    expect(testApp.app.cars.directory.get(driving.carId, later)?.session).toBeNull();
    // …and its timer, when the clock reaches the end, frees it for good.
    const ended = new Promise<string>((resolve) => {
      const off = testApp.app.events.on('car.session-ended', ({ carId, reason }) => {
        if (carId !== driving.carId) return;
        off();
        resolve(reason);
      });
    });
    clock.advance(CAR_SESSION_DEFAULT_MINUTES * 60_000 - 1_000);
    expect((await listed(driving.carId))?.current_user_id).toBe(driver.id);
    clock.advance(2_000);
    // Read in the same turn, before the timer's end of the session is written: the list read a
    // moment ago is not answered again as it was, its driver's time is up.
    const atOnce = testApp.app.cars.list();
    expect((await atOnce).find((car) => car.id === driving.carId)?.current_user_id).toBeNull();
    expect(await ended).toBe('session_expired');
    expect((await listed(driving.carId))?.current_user_id).toBeNull();
  });

  it('frees the car when its driver is banned', async () => {
    const driving = await createCar(testApp.app);
    const { driver } = await takeCar(testApp.app, driving);
    const ended = new Promise<void>((resolve) => {
      const off = testApp.app.events.on('car.session-ended', ({ carId }) => {
        if (carId !== driving.carId) return;
        off();
        resolve();
      });
    });
    const banned = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/users/${driver.id}/ban`,
      headers: driving.adminHeaders,
      payload: { ban: true },
    });
    expect(banned.statusCode).toBe(200);
    await ended;
    expect((await listed(driving.carId))?.current_user_id).toBeNull();
  });

  it('shows the car online while its agent is connected, offline once it left', async () => {
    const driving = await createCar(testApp.app);
    const car = await connectCar(host, driving.carId, driving.secret);
    expect((await listed(driving.carId))?.status).toBe('online');
    const offline = new Promise<void>((resolve) => {
      const off = testApp.app.events.on('car.offline', ({ carId }) => {
        if (carId !== driving.carId) return;
        off();
        resolve();
      });
    });
    await car.close();
    await offline;
    expect((await listed(driving.carId))?.status).toBe('offline');
  });

  it('lists the simulated cars provisioned after start-up', async () => {
    const [sim] = await provisionSimCars(testApp.app.adminCars, testApp.config.dataDir, 1);
    if (!sim) throw new Error('no sim car');
    expect(await listed(sim.id)).toMatchObject({ name: 'Sim 1', status: 'offline' });
  });

  it('a restart loads the same list from the database', async () => {
    const driving = await createCar(testApp.app, 'Kept across restarts');
    const { driver } = await takeCar(testApp.app, driving);
    const { directory } = testApp.app.cars;
    const before = (await get('/api/cars')).body;
    await directory.reload();
    expect((await get('/api/cars')).body).toEqual(before);
    expect(directory.get(driving.carId)).toMatchObject({ username: driver.username });
  });
});
