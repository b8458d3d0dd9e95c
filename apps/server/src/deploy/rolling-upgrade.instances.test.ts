/**
 * A rolling upgrade during a race (issue 40; docs/operations.md "Upgrades and migrations"): two
 * real instances (test/instances.ts), each restarted in turn as deploy/release.sh does — SIGTERM
 * (systemctl restart), then started again, /api/ready awaited — while the other keeps serving.
 * A leads, and holds the car and its driver: its stop hands the race to B, the car and the
 * driver's control socket come back on B (as a car agent and the page do), a lap counts there;
 * then B's stop hands it back to A, restarted meanwhile. The race is never dropped: the same race,
 * active throughout with the same end time and its one participant, every lap counted (one before
 * the upgrade, one on each side of it), the stored results whole.
 */
import type { AdminRaceResponse, LiveLeaderboardRow, RaceDetail, RaceState } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, startTwoInstances, type TwoInstances } from '../test/instances.js';
import { apiCall, takeCarWithCode } from '../test/process.js';
import { connectCar, controllerUrl, eventsUrl, openSocket, type TestSocket } from '../test/sockets.js';

type Json = Record<string, unknown>;

const stateOf = (m: Json) => m.payload as RaceState;
const isState = (check: (state: RaceState) => boolean) => (m: Json) =>
  m.type === 'race_state_update' && check(stateOf(m));
const lapsOf = (m: Json, carId: number) =>
  (m.data as LiveLeaderboardRow[]).find((row) => row.car_id === carId)?.laps ?? 0;

describe('a rolling upgrade of two instances during a race', () => {
  let pair: TwoInstances;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 120_000);
  afterAll(async () => {
    for (const socket of sockets) socket.ws.terminate();
    await pair?.dispose();
  });

  const hostOf = (instance: Instance) => `127.0.0.1:${instance.port}`;
  const track = (socket: TestSocket) => {
    sockets.push(socket);
    return socket;
  };
  const events = async (instance: Instance) =>
    track(await openSocket(eventsUrl(hostOf(instance), pair.adminToken), { origin: instance.base }));

  it('keeps the race — its id, end time, participant and every lap — while each instance restarts in turn', async () => {
    for (const instance of [pair.a, pair.b])
      await apiCall(
        instance.base,
        'PATCH',
        '/admin/settings',
        // Long enough for two restarts on a busy machine; the admin ends it.
        { race_countdown_seconds: 3, race_length_minutes: 3, min_lap_time_seconds: 1 },
        pair.adminToken,
      );
    const { car, secret } = await apiCall<{ car: { id: number }; secret: string }>(
      pair.a.base,
      'POST',
      '/admin/cars',
      { name: 'Raced through an upgrade', image_url: null },
      pair.adminToken,
    );
    const carId = car.id;
    const controlToken = await takeCarWithCode(pair.a.base, carId, pair.adminToken);
    /** The car agent and the driver's control page, (re)connected to `instance`; a drive reaches the car. */
    const driveOn = async (instance: Instance) => {
      const agent = track(await connectCar(hostOf(instance), carId, secret, { passes: true }));
      const control = track(
        await openSocket(controllerUrl(hostOf(instance), carId, pair.adminToken, controlToken), {
          origin: instance.base,
        }),
      );
      control.send({ type: 'drive', throttle: 0.5, steer: 0, seq: Date.now() });
      await agent.next((m) => m.type === 'drive' && m.throttle === 0.5, 10_000);
      return { agent, control };
    };
    let lastPass = 0;
    /**
     * The car crosses the line a minimum lap (1 s) after its last pass: a pass may be up to 1 s
     * ahead of the server's clock, so what is left of the lap beyond that is waited out.
     */
    const pass = async (agent: TestSocket) => {
      const at = lastPass === 0 ? Date.now() : lastPass + 1_000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - 1_000 - Date.now())));
      lastPass = at;
      agent.send({ type: 'pass', at });
    };

    let onCar = await driveOn(pair.a);
    const onB = await events(pair.b);
    onB.send({ type: 'join_lobby', carId });
    await onB.next(
      isState((s) => s.race_status === 'lobby' && s.totalParticipants === 1),
      10_000,
    );
    await apiCall<AdminRaceResponse>(pair.b.base, 'POST', '/admin/race/start', undefined, pair.adminToken);
    const active = stateOf(
      await onB.next(
        isState((s) => s.race_status === 'active'),
        10_000,
      ),
    );
    const sameRace = (state: RaceState) => {
      expect(state.race_id).toBe(active.race_id);
      expect(state.race_status).toBe('active');
      expect(state.race_expires_at).toBe(active.race_expires_at);
      expect(state.participants.map((p) => p.carId)).toEqual([carId]);
    };
    // Lap 1 before the upgrade, counted by A (the leader).
    await pass(onCar.agent);
    await pass(onCar.agent);
    await onB.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m, carId) === 1, 10_000);

    // A restarts (SIGTERM): it stops cleanly, B leads and resumes the race.
    const aStoppedAt = Date.now();
    expect(await pair.stop('A')).toBe(0);
    expect((await onCar.control.closed).code).toBe(1001);
    const resumedOnB = stateOf(
      await onB.next(
        isState((s) => s.race_status === 'active'),
        5_000,
      ),
    );
    console.info(`[measure] race resumed by B ${Date.now() - aStoppedAt} ms after A was sent SIGTERM`);
    sameRace(resumedOnB);
    // The car and the driver come back on B (nginx sends them there) with the same control token.
    onCar = await driveOn(pair.b);
    await pass(onCar.agent);
    await onB.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m, carId) === 2, 10_000);

    // A is back (the new release), ready: then B restarts, and A leads again.
    await pair.restart('A');
    const onA = await events(pair.a);
    onA.send({ type: 'get_current_state' });
    sameRace(
      stateOf(
        await onA.next(
          isState(() => true),
          5_000,
        ),
      ),
    );
    const bStoppedAt = Date.now();
    expect(await pair.stop('B')).toBe(0);
    expect((await onCar.control.closed).code).toBe(1001);
    const resumedOnA = stateOf(
      await onA.next(
        isState((s) => s.race_status === 'active'),
        5_000,
      ),
    );
    console.info(`[measure] race resumed by A ${Date.now() - bStoppedAt} ms after B was sent SIGTERM`);
    sameRace(resumedOnA);
    onCar = await driveOn(pair.a);
    await pass(onCar.agent);
    await onA.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m, carId) === 3, 10_000);

    // Both upgraded: B sees the same race, its three laps; the admin ends it and the results are whole.
    await pair.restart('B');
    const onNewB = await events(pair.b);
    onNewB.send({ type: 'get_current_state' });
    sameRace(
      stateOf(
        await onNewB.next(
          isState(() => true),
          5_000,
        ),
      ),
    );
    expect(lapsOf(await onNewB.next((m) => m.type === 'live_leaderboard_update', 5_000), carId)).toBe(3);
    await apiCall(pair.b.base, 'POST', '/admin/race/end', undefined, pair.adminToken);
    const race = await apiCall<RaceDetail>(pair.b.base, 'GET', `/races/${active.race_id}`);
    const participant = race.participants.find((p) => p.car_id === carId);
    expect(participant?.total_laps).toBe(3);
    expect(participant?.laps.map((lap) => lap.lap_number)).toEqual([1, 2, 3]);
  }, 180_000);
});
