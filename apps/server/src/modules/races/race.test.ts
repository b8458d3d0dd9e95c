/**
 * A whole race over real sockets (PGlite and PostgreSQL): two cars online over the car socket,
 * two drivers holding them, a viewer, and the admin. Time is the test's (ManualClock), so the
 * countdown's seconds and the passes' times are exact.
 */
import { CONTROL_LIMITS, ERROR_KEYS } from '@telerace/protocol';
import { asc, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, raceLaps, raceParticipants, races } from '../../db/schema.js';
import { ManualClock } from '../../test/clock.js';
import { authHeader, buildUser, tokenFor } from '../../test/factories.js';
import {
  controllerUrl,
  createCar,
  eventsUrl,
  type ListeningTestApp,
  openSocket,
  originOf,
  startListeningTestApp,
  type TestSocket,
  takeCar,
} from '../../test/sockets.js';

type Json = Record<string, unknown>;
const stateOf = (message: Json) => message.payload as Json & { participants: Json[] };

let clock: ManualClock;
let testApp: ListeningTestApp;
const sockets: TestSocket[] = [];

beforeEach(async () => {
  clock = new ManualClock();
  testApp = await startListeningTestApp({}, { clock });
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.ws.terminate();
  await testApp.close();
});

async function open(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const socket = await openSocket(url, headers);
  sockets.push(socket);
  return socket;
}

/** Two cars online, each taken by a driver with an event socket and a control socket; a viewer; the admin. */
async function raceSetup() {
  const { app, host } = testApp;
  const drivers = [];
  for (const name of ['Red', 'Blue']) {
    const driving = await createCar(app, name);
    const car = await open(`ws://${host}/rcsocket?type=car&car=${driving.carId}`, {
      authorization: `Bearer ${driving.secret}`,
    });
    car.send({ type: 'hello', protocolVersion: 1, agentVersion: 'test' });
    await car.nextOfType('welcome');
    const taken = await takeCar(app, driving);
    const events = await open(eventsUrl(host, taken.accessToken), originOf(app));
    const controller = await open(
      controllerUrl(host, driving.carId, taken.accessToken, taken.controlToken),
      originOf(app),
    );
    drivers.push({
      ...taken,
      carId: driving.carId,
      car,
      events,
      controller,
      adminHeaders: driving.adminHeaders,
    });
  }
  const viewer = await buildUser(app.database.db);
  const viewerEvents = await open(eventsUrl(host, await tokenFor(app, viewer)), originOf(app));
  const [alice, bob] = drivers as [(typeof drivers)[0], (typeof drivers)[0]];
  return { app, alice, bob, viewerEvents, adminHeaders: alice.adminHeaders };
}

const raceState = (socket: TestSocket, predicate: (state: ReturnType<typeof stateOf>) => boolean) =>
  socket.next((m) => m.type === 'race_state_update' && predicate(stateOf(m))).then(stateOf);

describe('a race from the lobby to the results', () => {
  it('join → ready → start → countdown 5…1 (neutral) → active → laps → end → results and sessions ended', async () => {
    const { app, alice, bob, viewerEvents, adminHeaders } = await raceSetup();
    const post = (url: string) => app.inject({ method: 'POST', url, headers: adminHeaders });

    // Nothing to end or start while idle.
    expect((await post('/api/admin/race/end')).json().errorKey).toBe(ERROR_KEYS.raceNotRunning);
    expect((await post('/api/admin/race/start')).statusCode).toBe(409);

    // A car the member does not hold is refused, with the key.
    alice.events.send({ type: 'join_lobby', carId: bob.carId });
    expect((await alice.events.nextOfType('error')).errorKey).toBe(ERROR_KEYS.notCarHolder);

    alice.events.send({ type: 'join_lobby', carId: alice.carId });
    const lobby = await raceState(viewerEvents, (s) => s.race_status === 'lobby');
    expect(lobby).toMatchObject({ totalParticipants: 1, readyCount: 0, raffle_status: 'closed' });
    expect(lobby.participants[0]).toMatchObject({
      userId: alice.driver.id,
      carId: alice.carId,
      carName: 'Red',
      isReady: false,
      ping: null,
    });
    bob.events.send({ type: 'join_lobby', carId: bob.carId });
    await raceState(viewerEvents, (s) => s.totalParticipants === 2);
    // Joining again is idempotent: nothing new is broadcast for it (the next change is the ready).
    alice.events.send({ type: 'join_lobby', carId: alice.carId });
    // Ready and ping changes go out at once when the last state is an interval old (at most one
    // per raceStateIntervalMs; race-state-pacer.test.ts).
    clock.advance(CONTROL_LIMITS.raceStateIntervalMs);
    alice.events.send({ type: 'toggle_ready' });
    expect(await raceState(viewerEvents, () => true)).toMatchObject({ readyCount: 1, totalParticipants: 2 });
    clock.advance(CONTROL_LIMITS.raceStateIntervalMs);
    bob.events.send({ type: 'ping_update', latency: 42 });
    const pinged = await raceState(viewerEvents, () => true);
    expect(pinged.participants.find((p) => p.userId === bob.driver.id)?.ping).toBe(42);

    // get_current_state answers from memory with the same state.
    viewerEvents.send({ type: 'get_current_state' });
    expect(await raceState(viewerEvents, () => true)).toEqual(pinged);

    // Start: the countdown from 5, pushed each second.
    const started = await post('/api/admin/race/start');
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().state).toMatchObject({ race_status: 'countdown', countdown_value: 5 });
    expect((await raceState(viewerEvents, () => true)).countdown_value).toBe(5);

    // During the countdown the drive is not forwarded: the car hears neutral.
    alice.controller.send({ type: 'drive', throttle: 1, steer: 0.5 });
    const held = await alice.car.next((m) => m.type === 'drive');
    expect(held).toMatchObject({ throttle: 0, steer: 0 });

    const values: unknown[] = [];
    for (let i = 0; i < 4; i += 1) {
      clock.advance(1_000);
      values.push((await raceState(viewerEvents, () => true)).countdown_value);
    }
    expect(values).toEqual([4, 3, 2, 1]);

    // Go: active with its end time; the driver's held throttle reaches the car at once.
    clock.advance(1_000);
    const active = await raceState(viewerEvents, (s) => s.race_status === 'active');
    expect(active.countdown_value).toBeNull();
    expect(Date.parse(active.race_expires_at as string) - clock.now().getTime()).toBe(3 * 60_000);
    expect(await alice.car.next((m) => m.type === 'drive' && m.throttle === 1)).toMatchObject({ steer: 0.5 });
    const zero = await viewerEvents.nextOfType('live_leaderboard_update');
    expect((zero.data as Json[]).map((row) => row.laps)).toEqual([0, 0]);

    // Laps: first pass starts lap 1; a pass too soon is ignored; the next completes a lap. (Passes
    // are judged when they arrive: every time here stays within the 10 s a pass may be late.)
    const t0 = clock.now().getTime();
    alice.car.send({ type: 'pass', at: t0 });
    bob.car.send({ type: 'pass', at: t0 + 100 });
    clock.advance(5_000);
    alice.car.send({ type: 'pass', at: t0 + 1_000 });
    alice.car.send({ type: 'pass', at: t0 + 5_000 });
    const lap1 = await viewerEvents.nextOfType('live_leaderboard_update');
    expect(lap1.data).toEqual([
      {
        pos: 1,
        name: alice.driver.username,
        laps: 1,
        last_lap: 5_000,
        best_lap: 5_000,
        user_id: alice.driver.id,
        car_id: alice.carId,
      },
      {
        pos: 2,
        name: bob.driver.username,
        laps: 0,
        last_lap: null,
        best_lap: null,
        user_id: bob.driver.id,
        car_id: bob.carId,
      },
    ]);
    // A pass from the future or long ago is ignored; a valid one counts.
    bob.car.send({ type: 'pass', at: clock.now().getTime() + 60_000 });
    bob.car.send({ type: 'pass', at: clock.now().getTime() - 30_000 });
    bob.car.send({ type: 'pass', at: t0 + 4_500 });
    // Equal laps: Bob completed his first, so he leads.
    const lap2 = await viewerEvents.nextOfType('live_leaderboard_update');
    expect((lap2.data as Json[]).map((row) => [row.pos, row.name, row.laps, row.best_lap])).toEqual([
      [1, bob.driver.username, 1, 4_400],
      [2, alice.driver.username, 1, 5_000],
    ]);

    // The admin ends it: results written, everyone back to idle, drivers' sessions end.
    const ended = await post('/api/admin/race/end');
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json().state.race_status).toBe('idle');
    await raceState(viewerEvents, (s) => s.race_status === 'idle');
    expect((await alice.events.nextOfType('force_disconnect')).reason).toBe('race_ended');
    expect((await bob.controller.closed).reason).toBe('race_ended');

    const [race] = await app.database.db.select().from(races);
    expect(race).toMatchObject({ status: 'finished', endReason: 'ended_by_admin' });
    const results = await app.database.db
      .select()
      .from(raceParticipants)
      .orderBy(asc(raceParticipants.position));
    expect(results.map((r) => [r.userId, r.position, r.laps, r.bestLapMs])).toEqual([
      [bob.driver.id, 1, 1, 4_400],
      [alice.driver.id, 2, 1, 5_000],
    ]);
    expect(await app.database.db.select().from(raceLaps)).toHaveLength(2);
    const audits = await app.database.db.select().from(auditLog).where(eq(auditLog.targetType, 'race'));
    expect(audits.map((a) => a.action)).toEqual(['race.start', 'race.end']);
  });

  it('the race ends by itself when its time is up', async () => {
    const { app, alice, viewerEvents, adminHeaders } = await raceSetup();
    await app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: adminHeaders,
      payload: { race_countdown_seconds: 3, race_length_minutes: 1 },
    });
    alice.events.send({ type: 'join_lobby', carId: alice.carId });
    await raceState(viewerEvents, (s) => s.race_status === 'lobby');
    await app.inject({ method: 'POST', url: '/api/admin/race/start', headers: adminHeaders });
    expect((await raceState(viewerEvents, (s) => s.race_status === 'countdown')).countdown_value).toBe(3);
    clock.advance(3_000);
    await raceState(viewerEvents, (s) => s.race_status === 'active');
    clock.advance(60_000);
    await raceState(viewerEvents, (s) => s.race_status === 'idle');
    const [race] = await app.database.db.select().from(races);
    expect(race).toMatchObject({ status: 'finished', endReason: 'expired' });
  });

  it('a driver whose session ends leaves the lobby; an emptied lobby closes without a race', async () => {
    const { app, alice, bob, viewerEvents, adminHeaders } = await raceSetup();
    alice.events.send({ type: 'join_lobby', carId: alice.carId });
    bob.events.send({ type: 'join_lobby', carId: bob.carId });
    await raceState(viewerEvents, (s) => s.totalParticipants === 2);
    await app.inject({ method: 'POST', url: `/api/admin/cars/${bob.carId}/kick`, headers: adminHeaders });
    expect((await raceState(viewerEvents, () => true)).participants.map((p) => p.userId)).toEqual([
      alice.driver.id,
    ]);
    await app.inject({ method: 'POST', url: `/api/admin/cars/${alice.carId}/kick`, headers: adminHeaders });
    await raceState(viewerEvents, (s) => s.race_status === 'idle');
    expect(await app.database.db.select().from(races)).toEqual([]);
  });

  it('after the start, a driver whose session ends keeps their laps; their car no longer counts', async () => {
    const { app, alice, bob, viewerEvents, adminHeaders } = await raceSetup();
    alice.events.send({ type: 'join_lobby', carId: alice.carId });
    bob.events.send({ type: 'join_lobby', carId: bob.carId });
    await raceState(viewerEvents, (s) => s.totalParticipants === 2);
    await app.inject({ method: 'POST', url: '/api/admin/race/start', headers: adminHeaders });
    clock.advance(5_000);
    await raceState(viewerEvents, (s) => s.race_status === 'active');
    const t0 = clock.now().getTime();
    alice.car.send({ type: 'pass', at: t0 });
    clock.advance(4_000);
    alice.car.send({ type: 'pass', at: t0 + 4_000 });
    await viewerEvents.next(
      (m) => m.type === 'live_leaderboard_update' && (m.data as Json[]).some((row) => row.laps === 1),
    );

    await app.inject({ method: 'POST', url: `/api/admin/cars/${alice.carId}/kick`, headers: adminHeaders });
    expect((await alice.events.nextOfType('force_disconnect')).reason).toBe('kicked');
    clock.advance(4_000);
    alice.car.send({ type: 'pass', at: t0 + 8_000 });
    await app.raceEngine.settled();
    const view = (await app.inject({ method: 'GET', url: '/api/admin/race', headers: adminHeaders })).json();
    expect(view.state.totalParticipants).toBe(2);
    expect(view.leaderboard.find((row: Json) => row.user_id === alice.driver.id)?.laps).toBe(1);
  });

  it('members only: the admin race calls refuse members (403) and anonymous callers (401)', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    for (const url of ['/api/admin/race/start', '/api/admin/race/end', '/api/admin/race/sync-lap-counter']) {
      expect((await app.inject({ method: 'POST', url })).statusCode).toBe(401);
      expect(
        (await app.inject({ method: 'POST', url, headers: await authHeader(app, member) })).statusCode,
      ).toBe(403);
    }
    expect((await app.inject({ method: 'GET', url: '/api/admin/race' })).statusCode).toBe(401);
  });
});
