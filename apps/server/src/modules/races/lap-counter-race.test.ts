/**
 * Races counted by an external lap counter, end to end inside the server (PGlite and PostgreSQL):
 * a ZRound decoder played by a local TCP server, and a RotorHazard timer played by a local
 * Socket.IO server. The admin maps the car to its transponder / pilot in the car admin, a driver
 * races, and the counter's passes become laps on the live leaderboard; RotorHazard also receives
 * the drivers' names from "Sync names to lap counter".
 */
import { createServer } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { AdminRaceResponse } from '@telerace/protocol';
import { and, eq, isNotNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { raceParticipants } from '../../db/schema.js';
import { ManualClock } from '../../test/clock.js';
import {
  connectCar,
  createCar,
  type ListeningTestApp,
  startListeningTestApp,
  type TestSocket,
  takeCar,
} from '../../test/sockets.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The race's countdown (set below). */
const COUNTDOWN_SECONDS = 3;

/** A server on a manual clock: the race and the counters' pass times run on it. */
async function start(env: Record<string, string>): Promise<ListeningTestApp & { clock: ManualClock }> {
  const clock = new ManualClock();
  const testApp = await startListeningTestApp(env, { clock });
  cleanups.push(() => testApp.close());
  return { ...testApp, clock };
}

/**
 * An online car mapped to `lapCounterId`, held by a driver who joined the lobby; the admin starts
 * the race (3 s countdown, 1 s minimum lap) and it goes active.
 */
async function raceWithMappedCar({ app, host }: ListeningTestApp, lapCounterId: string) {
  const driving = await createCar(app, 'Red');
  const car: TestSocket = await connectCar(host, driving.carId, driving.secret);
  cleanups.push(() => car.ws.terminate());
  const headers = driving.adminHeaders;
  const mapped = await app.inject({
    method: 'PUT',
    url: `/api/admin/cars/${driving.carId}/lap-counter-id`,
    headers,
    payload: { lap_counter_id: lapCounterId },
  });
  expect(mapped.statusCode, mapped.body).toBe(200);
  const { driver } = await takeCar(app, driving);
  await app.inject({
    method: 'PATCH',
    url: '/api/admin/settings',
    headers,
    payload: { race_countdown_seconds: COUNTDOWN_SECONDS, min_lap_time_seconds: 1 },
  });
  await app.race.run('join_lobby', { userId: driver.id, carId: driving.carId });
  const view = () => adminView(app, headers);
  return { driver, carId: driving.carId, headers, view };
}

async function adminView(app: FastifyInstance, headers: Record<string, string>): Promise<AdminRaceResponse> {
  return (await app.inject({ method: 'GET', url: '/api/admin/race', headers })).json() as AdminRaceResponse;
}

/** The admin starts the race and the clock runs through the countdown, a tick a second. */
async function startAndGoActive(app: FastifyInstance, clock: ManualClock, headers: Record<string, string>) {
  expect((await app.inject({ method: 'POST', url: '/api/admin/race/start', headers })).statusCode).toBe(200);
  for (let second = 0; second < COUNTDOWN_SECONDS; second += 1) {
    clock.advance(1_000);
    await app.race.settled();
  }
  expect((await adminView(app, headers)).state.race_status).toBe('active');
}

/** Once the driver's first pass (the start of lap 1) is stored. */
async function firstPassCounted(app: FastifyInstance, userId: number): Promise<void> {
  const passed = await app.database.db
    .select({ at: raceParticipants.lastPassAt })
    .from(raceParticipants)
    .where(and(eq(raceParticipants.userId, userId), isNotNull(raceParticipants.lastPassAt)));
  if (passed.length === 0) throw new Error('no pass counted yet');
}

describe('a race counted by a ZRound decoder', () => {
  it('the decoder’s passes of the mapped transponder become laps', async () => {
    const sockets: net.Socket[] = [];
    const decoder = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => decoder.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => decoder.close(resolve));
    });
    const port = (decoder.address() as AddressInfo).port;
    const testApp = await start({ LAP_COUNTER: 'zround', ZROUND_URL: `tcp://127.0.0.1:${port}` });
    const { app, clock } = testApp;
    const { driver, carId, headers, view } = await raceWithMappedCar(testApp, '0A');
    await expect.poll(async () => (await view()).lapCounter).toEqual({ kind: 'zround', connected: true });

    await startAndGoActive(app, clock, headers);
    // Decoder race time 10.000 s (0x2710 ms), then 11.500 s (0x2CEC) once our clock has moved as
    // much (the decoder's clock is mapped onto ours from its frames' arrival): a 1.5 s lap.
    sockets.at(-1)?.write('%L0A,2710&');
    await vi.waitFor(() => firstPassCounted(app, driver.id), { timeout: 5_000, interval: 20 });
    clock.advance(1_500);
    sockets.at(-1)?.write('%L05,2C00&%L0A,2CEC&');
    await expect
      .poll(async () => (await view()).leaderboard.find((row) => row.car_id === carId), { timeout: 5_000 })
      .toMatchObject({ laps: 1, last_lap: 1_500 });
  }, 30_000);
});

describe('a race counted by a RotorHazard timer', () => {
  it('receives the drivers’ names, and its pass records of the pilot become laps', async () => {
    const http = createServer();
    const io = new Server(http);
    const altered: unknown[] = [];
    let timer: Socket | undefined;
    io.on('connection', (socket) => {
      timer = socket;
      socket.on('load_data', (data: { load_types?: string[] }) => {
        if (data.load_types?.includes('current_heat'))
          socket.emit('current_heat', { current_heat: 1, heatNodes: { 0: { pilot_id: 3, callsign: 'P3' } } });
      });
      socket.on('alter_pilot', (data: unknown) => altered.push(data));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => io.close());
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const testApp = await start({ LAP_COUNTER: 'rotorhazard', ROTORHAZARD_URL: url });
    const { app, clock } = testApp;
    const { driver, carId, headers, view } = await raceWithMappedCar(testApp, '3');
    await expect.poll(async () => (await view()).lapCounter.connected).toBe(true);

    const synced = await app.inject({ method: 'POST', url: '/api/admin/race/sync-lap-counter', headers });
    expect(synced.json()).toEqual({ synced: 1 });
    await expect
      .poll(() => altered)
      .toEqual([{ pilot_id: 3, callsign: driver.username, name: driver.username }]);

    await startAndGoActive(app, clock, headers);
    // Stamped with the timer's clock (epoch ms, here ours): one before the green light is ignored;
    // the second pass is heard once our clock has reached it (a pass is never later than that).
    const first = clock.now().getTime();
    timer?.emit('pass_record', { node: 0, frequency: 5658, timestamp: first - 8_000 });
    timer?.emit('pass_record', { node: 0, frequency: 5658, timestamp: first });
    await vi.waitFor(() => firstPassCounted(app, driver.id), { timeout: 5_000, interval: 20 });
    clock.advance(1_200);
    timer?.emit('pass_record', { node: 0, frequency: 5658, timestamp: first + 1_200 });
    await expect
      .poll(async () => (await view()).leaderboard.find((row) => row.car_id === carId), { timeout: 5_000 })
      .toMatchObject({ laps: 1, last_lap: 1_200 });
  }, 30_000);
});
