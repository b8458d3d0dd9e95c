/**
 * A whole race over real sockets (PGlite and PostgreSQL): two cars online over the car socket,
 * two drivers holding them, a viewer, and the admin. Time is the test's (ManualClock), so the
 * countdown's seconds and the passes' times are exact. And a racer keeps the car for the whole
 * race (issue 23): a session whose nominal end falls during the race lasts until the race ends.
 */
import { CONTROL_LIMITS, ERROR_KEYS, SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { asc, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, carSessions, raceLaps, raceParticipants, races } from '../../db/schema.js';
import type { DomainEvents } from '../../events.js';
import { ManualClock } from '../../test/clock.js';
import { authHeader, buildUser, tokenFor } from '../../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  type Driving,
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

const isNeutral = (m: Json) => m.type === 'stop' || (m.type === 'drive' && m.throttle === 0 && m.steer === 0);

/** A car online over its socket. */
async function onlineCar(name: string): Promise<Driving & { car: TestSocket }> {
  const driving = await createCar(testApp.app, name);
  const car = await connectCar(testApp.host, driving.carId, driving.secret);
  sockets.push(car);
  return { ...driving, car };
}

/**
 * An access token for a test's socket: the clock runs past a token's lifetime here, and a page
 * would hand its sockets each refreshed token (`auth`); the test's sockets open with one that
 * outlives the test instead.
 */
const socketToken = (user: Awaited<ReturnType<typeof buildUser>>) =>
  tokenFor(testApp.app, user, { seconds: 24 * 60 * 60 });

/** `driver` (a new member by default) takes the car with a code and opens its control socket. */
async function drive(car: Driving, driver?: Awaited<ReturnType<typeof buildUser>>) {
  const { app, host } = testApp;
  const taken = await takeCar(app, car, driver);
  const controller = await open(
    controllerUrl(host, car.carId, await socketToken(taken.driver), taken.controlToken),
    originOf(app),
  );
  return { ...taken, controller };
}

async function raceFeedSocket(user: Awaited<ReturnType<typeof buildUser>>): Promise<TestSocket> {
  return open(eventsUrl(testApp.host, await socketToken(user)), originOf(testApp.app));
}

async function sessionOf(userId: number, carId: number) {
  const rows = await testApp.app.database.db.select().from(carSessions).where(eq(carSessions.userId, userId));
  return rows.find((row) => row.carId === carId);
}

/** Moves the clock and lets every timer's work (the expiry sweep, the race's ticks) finish. */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await testApp.app.race.settled();
  await testApp.app.drivingSessions.sweepExpired();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The status the control page reads: when the car's session ends (ISO). */
async function sessionEndsAt(carId: number, headers: { authorization: string }): Promise<string | null> {
  const response = await testApp.app.inject({ method: 'GET', url: `/api/cars/${carId}/status`, headers });
  return (response.json() as { session_ends_at: string | null }).session_ends_at;
}

/** Two cars online, each taken by a driver with an event socket and a control socket; a viewer; the admin. */
async function raceSetup() {
  const { app } = testApp;
  const drivers = [];
  for (const name of ['Red', 'Blue']) {
    const online = await onlineCar(name);
    const taken = await drive(online);
    drivers.push({ ...online, ...taken, events: await raceFeedSocket(taken.driver) });
  }
  const viewerEvents = await raceFeedSocket(await buildUser(app.database.db));
  const [alice, bob] = drivers as [(typeof drivers)[0], (typeof drivers)[0]];
  return { app, alice, bob, viewerEvents, adminHeaders: alice.adminHeaders };
}

const raceState = (socket: TestSocket, predicate: (state: ReturnType<typeof stateOf>) => boolean) =>
  socket.next((m) => m.type === 'race_state_update' && predicate(stateOf(m))).then(stateOf);

const MINUTE = 60_000;
/** The defaults: a 10-minute turn, a 5-second countdown, a 3-minute race. */
const TURN = 10 * MINUTE;

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
    await app.race.settled();
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

describe('a racer keeps the car for the whole race', () => {
  it('past its nominal end until the race ends, then the session ends as every racer’s does; a driver not in the race loses the car at the nominal end', async () => {
    const { app } = testApp;
    const ended: DomainEvents['car.session-ended'][] = [];
    const off = app.events.on('car.session-ended', (event) => ended.push(event));
    const red = await onlineCar('Red');
    const blue = await onlineCar('Blue');
    const start = clock.now().getTime();
    const alice = await drive(red);
    const aliceEvents = await raceFeedSocket(alice.driver);
    await advance(MINUTE);
    const bob = await drive(blue);
    const bobEvents = await raceFeedSocket(bob.driver);
    const viewer = await raceFeedSocket(await buildUser(app.database.db));

    // Alice joins the lobby 8 minutes into her 10-minute turn; a 3-minute race follows at once.
    await advance(7 * MINUTE);
    aliceEvents.send({ type: 'join_lobby', carId: red.carId });
    const lobby = await raceState(viewer, (s) => s.race_status === 'lobby');
    // The lobby keeps her car at most one more turn; everyone sees until when.
    expect(lobby.participants[0]?.sessionEndsAt).toBe(iso(start + 2 * TURN));
    expect(await sessionEndsAt(red.carId, alice.headers)).toBe(iso(start + 2 * TURN));
    const started = await app.inject({
      method: 'POST',
      url: '/api/admin/race/start',
      headers: red.adminHeaders,
    });
    expect(started.statusCode, started.body).toBe(200);
    // From the start on, her car is hers until the race ends (null: no time of its own).
    expect((await raceState(viewer, (s) => s.race_status === 'countdown')).participants[0]).toMatchObject({
      userId: alice.driver.id,
      sessionEndsAt: null,
    });
    for (let second = 0; second < 5; second += 1) await advance(1_000);
    const active = await raceState(viewer, (s) => s.race_status === 'active');
    const raceEnd = Date.parse(active.race_expires_at as string);
    expect(raceEnd).toBe(start + 8 * MINUTE + 5_000 + 3 * MINUTE);

    // Past her nominal end, mid-race: she keeps the car and keeps driving.
    await advance(start + TURN + 30_000 - clock.now().getTime());
    expect((await sessionOf(alice.driver.id, red.carId))?.endedAt).toBeNull();
    expect(Date.parse((await sessionEndsAt(red.carId, alice.headers)) ?? '')).toBeGreaterThanOrEqual(raceEnd);
    alice.controller.send({ type: 'drive', throttle: 0.6, steer: -0.2 });
    expect(await red.car.next((m) => m.type === 'drive' && m.throttle === 0.6)).toMatchObject({
      steer: -0.2,
    });
    expect(aliceEvents.messages.some((m) => m.type === 'force_disconnect')).toBe(false);

    // Bob is not in the race: his turn ends at its nominal end, as always.
    await advance(start + MINUTE + TURN + 1_000 - clock.now().getTime());
    expect(await bobEvents.nextOfType('force_disconnect')).toEqual({
      type: 'force_disconnect',
      reason: 'session_expired',
    });
    expect((await bob.controller.closed).code).toBe(SOCKET_CLOSE_CODES.sessionEnded);
    await blue.car.next(isNeutral);
    expect((await sessionOf(bob.driver.id, blue.carId))?.endReason).toBe('session_expired');
    // Alice still drives.
    alice.controller.send({ type: 'drive', throttle: 0.4, steer: 0 });
    await red.car.next((m) => m.type === 'drive' && m.throttle === 0.4);
    expect((await sessionOf(alice.driver.id, red.carId))?.endedAt).toBeNull();

    // The race ends: her session ends with it, as every racer's does (the car stops, she is told).
    await advance(raceEnd - clock.now().getTime());
    await raceState(viewer, (s) => s.race_status === 'idle');
    expect(await aliceEvents.nextOfType('force_disconnect')).toEqual({
      type: 'force_disconnect',
      reason: 'race_ended',
    });
    expect(await alice.controller.closed).toEqual({
      code: SOCKET_CLOSE_CODES.sessionEnded,
      reason: 'race_ended',
    });
    await red.car.next(isNeutral);
    expect(await sessionOf(alice.driver.id, red.carId)).toMatchObject({ endReason: 'race_ended' });
    expect(await sessionEndsAt(red.carId, alice.headers)).toBeNull();
    off();
    expect(ended.map(({ userId, reason }) => [userId, reason])).toEqual([
      [bob.driver.id, 'session_expired'],
      [alice.driver.id, 'race_ended'],
    ]);
  });

  it('a participant who leaves the lobby loses the extension; the lobby keeps a car at most one more turn', async () => {
    const { app } = testApp;
    const red = await onlineCar('Red');
    const blue = await onlineCar('Blue');
    const start = clock.now().getTime();
    const alice = await drive(red);
    const aliceEvents = await raceFeedSocket(alice.driver);
    const viewer = await raceFeedSocket(await buildUser(app.database.db));
    await advance(5 * MINUTE);
    const onBlue = await drive(blue, alice.driver);

    // In the lobby with Red: its nominal end passes and she keeps it.
    await advance(MINUTE);
    aliceEvents.send({ type: 'join_lobby', carId: red.carId });
    await raceState(viewer, (s) => s.race_status === 'lobby');
    await advance(start + TURN + 30_000 - clock.now().getTime());
    expect((await sessionOf(alice.driver.id, red.carId))?.endedAt).toBeNull();
    expect(await sessionEndsAt(red.carId, alice.headers)).toBe(iso(start + 2 * TURN));

    // She switches to Blue: Red is no longer in the race and its turn, long over, ends now.
    aliceEvents.send({ type: 'join_lobby', carId: blue.carId });
    const switched = await raceState(viewer, (s) => s.participants[0]?.carId === blue.carId);
    expect(switched.participants[0]?.sessionEndsAt).toBe(iso(start + 5 * MINUTE + 2 * TURN));
    expect((await alice.controller.closed).reason).toBe('session_expired');
    await red.car.next(isNeutral);
    expect(await sessionOf(alice.driver.id, red.carId)).toMatchObject({ endReason: 'session_expired' });
    expect(await sessionEndsAt(red.carId, alice.headers)).toBeNull();

    // Blue's nominal end passes in the lobby: kept, until one more turn after it.
    await advance(start + 5 * MINUTE + TURN + 30_000 - clock.now().getTime());
    expect((await sessionOf(alice.driver.id, blue.carId))?.endedAt).toBeNull();
    onBlue.controller.send({ type: 'drive', throttle: 0.5, steer: 0 });
    await blue.car.next((m) => m.type === 'drive' && m.throttle === 0.5);

    // An admin who leaves the lobby open: one more turn, and the car goes back (she leaves the lobby).
    await advance(start + 5 * MINUTE + 2 * TURN + 1_000 - clock.now().getTime());
    expect((await onBlue.controller.closed).reason).toBe('session_expired');
    expect(await sessionOf(alice.driver.id, blue.carId)).toMatchObject({ endReason: 'session_expired' });
    await raceState(viewer, (s) => s.race_status === 'idle');
  });
});
