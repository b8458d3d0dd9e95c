/**
 * What a follower receives, with two real instances (issue 39; test/instances.ts): A, up first,
 * leads; B follows. Every race command a member or an admin can send through B runs on A's engine
 * — the event socket's `join_lobby`, `toggle_ready`, `ping_update` and `leave_lobby` (the control
 * page's lobby), a car's finish-line pass, the admin's start and end, and the lobby a raffle's
 * draw opens — each seen in the race B shows. And a fact whose handler writes is handled once, not
 * once per instance: a ban on A ends the member's car sessions with one UPDATE, and that session's
 * end replaces the car's video PIN with one, counted by statement-level triggers (they fire for a
 * statement that changes no row too).
 */
import {
  type AdminRaceResponse,
  ERROR_KEYS,
  type LiveLeaderboardRow,
  type RaceState,
} from '@telerace/protocol';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, signUpMember, startTwoInstances, type TwoInstances } from '../test/instances.js';
import { apiCall, takeCarWithCode } from '../test/process.js';
import { connectCar, eventsUrl, openSocket, type TestSocket } from '../test/sockets.js';

type Json = Record<string, unknown>;

const stateOf = (m: Json) => m.payload as RaceState;

describe('through a follower', () => {
  let pair: TwoInstances;
  let database: pg.Client;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    pair = await startTwoInstances();
    database = new pg.Client({ connectionString: pair.environment.env.DATABASE_URL });
    await database.connect();
  }, 120_000);
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.ws.terminate();
  });
  afterAll(async () => {
    await database?.end();
    await pair?.dispose();
  });

  const hostOf = (instance: Instance) => `127.0.0.1:${instance.port}`;
  const onB = <T>(method: string, path: string, body?: unknown) =>
    apiCall<T>(pair.b.base, method, path, body, pair.adminToken);
  const events = async (instance: Instance, token: string) => {
    const socket = await openSocket(eventsUrl(hostOf(instance), token), { origin: instance.base });
    sockets.push(socket);
    return socket;
  };
  /** A car added through B, its agent (by hand) connected to B. */
  const carOnB = async (name: string) => {
    const { car, secret } = await onB<{ car: { id: number }; secret: string }>('POST', '/admin/cars', {
      name,
      image_url: null,
    });
    const agent = await connectCar(hostOf(pair.b), car.id, secret);
    sockets.push(agent);
    return { carId: car.id, agent };
  };

  it('every race command a member or an admin sends through the follower runs on the leader', async () => {
    await onB('PATCH', '/admin/settings', {
      race_countdown_seconds: 3,
      race_length_minutes: 1,
      min_lap_time_seconds: 1,
    });
    // The leader's copy of the settings comes with `settings.changed`: the start reads it there.
    await expect
      .poll(
        async () =>
          (await apiCall<Json>(pair.a.base, 'GET', '/admin/settings', undefined, pair.adminToken))
            .race_countdown_seconds,
      )
      .toBe(3);
    const { carId, agent } = await carOnB('Raced through B');
    await takeCarWithCode(pair.b.base, carId, pair.adminToken);
    const socket = await events(pair.b, pair.adminToken);
    const state = (check: (s: RaceState) => boolean) =>
      socket.next((m) => m.type === 'race_state_update' && check(stateOf(m)), 10_000).then(stateOf);
    const me = (s: RaceState) => s.participants.find((p) => p.carId === carId);

    socket.send({ type: 'join_lobby', carId });
    await state((s) => s.race_status === 'lobby' && me(s) !== undefined);
    socket.send({ type: 'toggle_ready' });
    await state((s) => me(s)?.isReady === true);
    socket.send({ type: 'ping_update', latency: 42 });
    await state((s) => me(s)?.ping === 42);
    // The last one out: the lobby closes (was ignored on a follower, the member left in it).
    socket.send({ type: 'leave_lobby' });
    await state((s) => s.race_status === 'idle');
    // Out of the lobby, the leader refuses it: the check is the engine's, on the race as it is.
    socket.send({ type: 'leave_lobby' });
    await socket.next((m) => m.type === 'error' && m.errorKey === ERROR_KEYS.notInLobby, 10_000);

    socket.send({ type: 'join_lobby', carId });
    await state((s) => s.race_status === 'lobby' && me(s) !== undefined);
    const started = await onB<AdminRaceResponse>('POST', '/admin/race/start');
    expect(started.state.race_status).toBe('countdown');
    await state((s) => s.race_status === 'active');
    // Two passes a lap apart, from the car's socket on B: the leader counts the lap.
    const at = Date.now();
    agent.send({ type: 'pass', at });
    agent.send({ type: 'pass', at: at + 1_000 });
    const lapsOf = (m: Json) => (m.data as LiveLeaderboardRow[]).find((row) => row.car_id === carId)?.laps;
    const board = await socket.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m) !== 0, 10_000);
    expect(lapsOf(board)).toBe(1);
    const ended = await onB<AdminRaceResponse>('POST', '/admin/race/end');
    expect(ended.state.race_status).toBe('idle');

    // A raffle drawn through B opens its winners' lobby on the leader.
    await onB('POST', '/admin/race/start-raffle', { racers: 1 });
    await onB('POST', '/admin/race/raffle-entries', {
      platform: 'twitch',
      platformUserId: 'viewer-through-b',
      displayName: 'Viewer',
    });
    await onB('POST', '/admin/race/draw-winners');
    const lobby = await state((s) => s.race_status === 'lobby');
    expect(lobby.totalParticipants).toBe(0);
    await onB('POST', '/admin/race/end');
  }, 90_000);

  it('a fact whose handler writes is handled once: a ban on A ends the car session and replaces the PIN with one UPDATE each', async () => {
    // Every UPDATE statement on the sessions by member and on the PINs, whether it changes a row or not.
    await database.query(`
      CREATE TABLE update_statements (target text NOT NULL, statement text NOT NULL);
      CREATE FUNCTION count_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO update_statements VALUES (TG_TABLE_NAME, current_query());
        RETURN NULL;
      END $$;
      CREATE TRIGGER count_update AFTER UPDATE ON car_sessions
        FOR EACH STATEMENT EXECUTE FUNCTION count_update();
      CREATE TRIGGER count_update AFTER UPDATE ON car_video_pins
        FOR EACH STATEMENT EXECUTE FUNCTION count_update();`);
    const updates = async () =>
      (
        await database.query<{ target: string; n: string }>(`
          SELECT target, count(*) AS n FROM update_statements
          WHERE target = 'car_video_pins' OR statement LIKE '%"car_sessions"."user_id" = $%'
          GROUP BY target ORDER BY target`)
      ).rows.map(({ target, n }) => `${target}: ${n}`);

    const { carId } = await carOnB('Banned driver’s car');
    const driver = await signUpMember(pair.b, 'banned_driver');
    await takeCarWithCode(pair.b.base, carId, pair.adminToken, driver.token);
    // B hears the ban: its handlers close the member's socket there.
    const driverOnB = await events(pair.b, driver.token);

    await apiCall(pair.a.base, 'POST', `/admin/users/${driver.id}/ban`, { ban: true }, pair.adminToken);
    await driverOnB.closed;
    await expect
      .poll(
        async () =>
          (await onB<{ session_ends_at: string | null }>('GET', `/cars/${carId}/status`)).session_ends_at,
      )
      .toBeNull();
    // What B would write, it writes within milliseconds of hearing the facts.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await updates()).toEqual(['car_sessions: 1', 'car_video_pins: 1']);
  }, 60_000);
});
