/**
 * Race Control's warning before a race (PGlite and PostgreSQL): GET /api/admin/race lists the
 * participants' cars the lap counter in use cannot count. With `LAP_COUNTER=car`, a car whose agent
 * says in its hello that it reports no crossings (a real car without a lap sensor), or says
 * nothing of it (an older agent); with a decoder, a car without a lap counter id, whatever its
 * agent says.
 */
import type { AdminRaceResponse } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectCar,
  createCar,
  type ListeningTestApp,
  startListeningTestApp,
  takeCar,
} from '../../test/sockets.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(env: Record<string, string> = {}): Promise<ListeningTestApp> {
  const testApp = await startListeningTestApp(env);
  cleanups.push(() => testApp.close());
  return testApp;
}

/**
 * A car named `name` whose agent says `capabilities` in its hello (none: an agent older than
 * them), held by a new driver who joins the lobby.
 */
async function carInLobby({ app, host }: ListeningTestApp, name: string, capabilities?: { passes: boolean }) {
  const driving = await createCar(app, name);
  const agent = await connectCar(host, driving.carId, driving.secret, capabilities);
  cleanups.push(() => agent.ws.terminate());
  const { driver } = await takeCar(app, driving);
  await app.race.run('join_lobby', { userId: driver.id, carId: driving.carId });
  return driving;
}

async function adminView(
  { app }: ListeningTestApp,
  headers: Record<string, string>,
): Promise<AdminRaceResponse> {
  const response = await app.inject({ method: 'GET', url: '/api/admin/race', headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as AdminRaceResponse;
}

describe('the cars the lap counter in use cannot count', () => {
  it('with LAP_COUNTER=car: the cars whose agent reports no crossings, or says nothing of them', async () => {
    const testApp = await start();
    const sim = await carInLobby(testApp, 'Sim 1', { passes: true });
    const real = await carInLobby(testApp, 'Real 1', { passes: false });
    const old = await carInLobby(testApp, 'Old agent');

    const view = await adminView(testApp, sim.adminHeaders);
    expect(view.state.participants.map((p) => p.carName)).toEqual(['Sim 1', 'Real 1', 'Old agent']);
    expect(view.lapCounter.kind).toBe('car');
    expect(view.uncountedCars).toEqual([
      { carId: real.carId, carName: 'Real 1', reason: 'no_passes' },
      { carId: old.carId, carName: 'Old agent', reason: 'no_passes' },
    ]);
  });

  it('with a decoder: the cars without a lap counter id, whatever their agent says', async () => {
    // The decoder need not answer: a lap counter that is down is retried and never stops the server.
    const testApp = await start({ LAP_COUNTER: 'zround', ZROUND_URL: 'tcp://127.0.0.1:9' });
    const mapped = await carInLobby(testApp, 'Real 1', { passes: false });
    const assigned = await testApp.app.inject({
      method: 'PUT',
      url: `/api/admin/cars/${mapped.carId}/lap-counter-id`,
      headers: mapped.adminHeaders,
      payload: { lap_counter_id: '0A' },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    const unmapped = await carInLobby(testApp, 'Sim 1', { passes: true });

    const view = await adminView(testApp, mapped.adminHeaders);
    expect(view.lapCounter.kind).toBe('zround');
    expect(view.uncountedCars).toEqual([
      { carId: unmapped.carId, carName: 'Sim 1', reason: 'no_lap_counter_id' },
    ]);
  });

  it('judges nobody when no lobby is open', async () => {
    const testApp = await start();
    const idle = await createCar(testApp.app, 'Real 1');
    const agent = await connectCar(testApp.host, idle.carId, idle.secret, { passes: false });
    cleanups.push(() => agent.ws.terminate());
    expect((await adminView(testApp, idle.adminHeaders)).uncountedCars).toEqual([]);
  });
});
