/**
 * One leader (issue 15): two real server instances on one PostgreSQL and Redis; A, up first,
 * holds the advisory lock and runs the race engine. A follower's commands (join, admin start) run
 * on the leader; SIGKILLing the leader mid-lobby and mid-race hands the engine to the other, which
 * waits in PostgreSQL's lock queue, within HANDOVER_MS (issue 39: the goal is 5 s, half of it is
 * asserted; each handover is printed), with the lobby, the end time and the laps intact, and the
 * race ends on time on the new leader.
 */
import type { ChildProcess } from 'node:child_process';
import type { AdminRaceResponse, LiveLeaderboardRow, RaceDetail, RaceState } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwoInstances, type TwoInstances } from '../test/instances.js';
import { addSimCar, apiCall, killProcess, takeCarWithCode } from '../test/process.js';
import { controllerUrl, eventsUrl, openSocket, type TestSocket } from '../test/sockets.js';

type Json = Record<string, unknown>;

/** From the SIGKILL to the other instance publishing the race it resumed. */
const HANDOVER_MS = 2_500;

const stateOf = (m: Json) => m.payload as RaceState;
const isState = (check: (state: RaceState) => boolean) => (m: Json) =>
  m.type === 'race_state_update' && check(stateOf(m));
const lapsOf = (rows: LiveLeaderboardRow[], carId: number) =>
  rows.find((row) => row.car_id === carId)?.laps ?? 0;

describe('the race engine on exactly one instance', () => {
  let pair: TwoInstances;
  const sockets: TestSocket[] = [];
  const children: ChildProcess[] = [];
  let drive: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 120_000);
  afterAll(async () => {
    clearInterval(drive);
    for (const socket of sockets) socket.ws.terminate();
    for (const child of children) await killProcess(child);
    await pair?.dispose();
  });

  const hostOf = (base: string) => new URL(base).host;
  const events = async (base: string) => {
    const socket = await openSocket(eventsUrl(hostOf(base), pair.adminToken), { origin: base });
    sockets.push(socket);
    return socket;
  };

  it(`hands the lobby, then a race, to the other instance within ${HANDOVER_MS} ms of its leader’s death`, async () => {
    // Each instance's settings cache is its own until the facts carry them: set them on both.
    for (const instance of [pair.a, pair.b])
      await apiCall(
        instance.base,
        'PATCH',
        '/admin/settings',
        { race_countdown_seconds: 3, race_length_minutes: 1, min_lap_time_seconds: 1 },
        pair.adminToken,
      );

    // The car and its driver on B (a follower): the join goes to A's engine and back.
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Red');
    children.push(agent);
    await expect
      .poll(
        async () =>
          (
            await apiCall<{ id: number; status: string }[]>(
              pair.b.base,
              'GET',
              '/cars',
              undefined,
              pair.adminToken,
            )
          ).find((car) => car.id === carId)?.status,
        { timeout: 30_000 },
      )
      .toBe('online');
    const controlToken = await takeCarWithCode(pair.b.base, carId, pair.adminToken);
    const onB = await events(pair.b.base);
    onB.send({ type: 'join_lobby', carId });
    const lobby = stateOf(
      await onB.next(
        isState((s) => s.totalParticipants === 1),
        10_000,
      ),
    );
    expect(lobby.race_status).toBe('lobby');

    // Mid-lobby: A dies; B takes the lock within 5 s and publishes the lobby it read back.
    const lobbyKilledAt = Date.now();
    await pair.kill('A');
    const resumedLobby = stateOf(
      await onB.next(
        isState((s) => s.race_status === 'lobby'),
        HANDOVER_MS + 2_000,
      ),
    );
    const lobbyHandover = Date.now() - lobbyKilledAt;
    console.info(`[measure] lobby resumed by B ${lobbyHandover} ms after A was killed`);
    expect(lobbyHandover).toBeLessThan(HANDOVER_MS);
    expect(resumedLobby.race_id).toBe(lobby.race_id);
    expect(resumedLobby.participants.map((p) => p.carId)).toEqual([carId]);

    // A comes back as a follower; the admin starts the race through it (run by B, the leader).
    await pair.restart('A');
    const onA = await events(pair.a.base);
    const started = await apiCall<AdminRaceResponse>(
      pair.a.base,
      'POST',
      '/admin/race/start',
      undefined,
      pair.adminToken,
    );
    expect(started.state.race_status).toBe('countdown');
    const active = stateOf(
      await onA.next(
        isState((s) => s.race_status === 'active'),
        10_000,
      ),
    );

    // Full throttle on B until a lap is counted (the agent reports its passes).
    const control = await openSocket(
      controllerUrl(hostOf(pair.b.base), carId, pair.adminToken, controlToken),
      {
        origin: pair.b.base,
      },
    );
    sockets.push(control);
    drive = setInterval(() => control.send({ type: 'drive', throttle: 1, steer: 0 }), 100);
    const lapped = await onA.next(
      (m) => m.type === 'live_leaderboard_update' && lapsOf(m.data as LiveLeaderboardRow[], carId) >= 1,
      40_000,
    );
    const lapsBefore = lapsOf(lapped.data as LiveLeaderboardRow[], carId);
    clearInterval(drive);

    // Mid-race: B (the leader, and the car's instance) dies; A resumes the race within 5 s.
    const raceKilledAt = Date.now();
    await pair.kill('B');
    const resumed = stateOf(
      await onA.next(
        isState((s) => s.race_status === 'active'),
        HANDOVER_MS + 2_000,
      ),
    );
    const raceHandover = Date.now() - raceKilledAt;
    console.info(`[measure] race resumed by A ${raceHandover} ms after B was killed`);
    expect(raceHandover).toBeLessThan(HANDOVER_MS);
    expect(resumed.race_id).toBe(active.race_id);
    expect(resumed.race_expires_at).toBe(active.race_expires_at);
    onA.send({ type: 'get_current_state' });
    const board = await onA.next((m) => m.type === 'live_leaderboard_update', 5_000);
    expect(lapsOf(board.data as LiveLeaderboardRow[], carId)).toBeGreaterThanOrEqual(lapsBefore);

    // The race ends on time on the new leader, its laps all kept.
    const expiresAt = Date.parse(active.race_expires_at as string);
    await onA.next(
      isState((s) => s.race_status === 'idle'),
      expiresAt - Date.now() + 5_000,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    const race = await apiCall<RaceDetail>(pair.a.base, 'GET', `/races/${active.race_id}`);
    const participant = race.participants.find((p) => p.car_id === carId);
    expect(participant?.total_laps).toBeGreaterThanOrEqual(lapsBefore);
    expect(participant?.laps.map((lap) => lap.lap_number)).toEqual(participant?.laps.map((_, i) => i + 1));
  }, 240_000);
});
