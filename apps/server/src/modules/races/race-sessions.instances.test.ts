/**
 * A racer keeps the car for the whole race, across two real instances (test/instances.ts): the
 * race engine runs on the leader, which keeps its racers' sessions; the moved ends travel as
 * facts over Redis, so the car's status and the race state say the same on both instances, and
 * the race's end ends the session on both.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Instance, startTwoInstances, TEST_REDIS_URL, type TwoInstances } from '../../test/instances.js';
import { addSimCar, apiCall, killProcess, lineAppears, takeCarWithCode } from '../../test/process.js';
import { eventsUrl, openSocket, type TestSocket } from '../../test/sockets.js';

const MINUTE = 60_000;
type Participant = { carId: number; sessionEndsAt?: string | null };
type State = { race_status: string; participants: Participant[] };

describe('a racer keeps the car on every instance', () => {
  let pair: TwoInstances;
  const children: ChildProcess[] = [];
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    pair = await startTwoInstances({ env: { REDIS_URL: TEST_REDIS_URL } });
  }, 120_000);
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.ws.terminate();
    for (const child of children.splice(0)) await killProcess(child);
  });
  afterAll(async () => {
    await pair?.dispose();
  });

  const sessionEndsAt = async (instance: Instance, carId: number) =>
    (
      await apiCall<{ session_ends_at: string | null }>(
        instance.base,
        'GET',
        `/cars/${carId}/status`,
        undefined,
        pair.adminToken,
      )
    ).session_ends_at;

  /** The car's session end as each instance answers it, once both say `expected` (facts take a moment). */
  function bothSay(carId: number, expected: (end: string | null) => boolean): Promise<(string | null)[]> {
    return vi.waitFor(
      async () => {
        const ends = [await sessionEndsAt(pair.a, carId), await sessionEndsAt(pair.b, carId)];
        expect(ends.every(expected), String(ends)).toBe(true);
        return ends;
      },
      { timeout: 10_000, interval: 100 },
    );
  }

  const raceState = (socket: TestSocket, predicate: (state: State) => boolean) =>
    socket
      .next((m) => m.type === 'race_state_update' && predicate(m.payload as State), 10_000)
      .then((m) => m.payload as State);

  it('the lobby and the race move the session end on both; the race end ends it on both', async () => {
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Racer on B');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);
    await takeCarWithCode(pair.b.base, carId, pair.adminToken);
    const nominal = await sessionEndsAt(pair.b, carId);
    expect(nominal).not.toBeNull();
    const onA = await openSocket(eventsUrl(`127.0.0.1:${pair.a.port}`, pair.adminToken), {
      origin: pair.a.base,
    });
    const onB = await openSocket(eventsUrl(`127.0.0.1:${pair.b.port}`, pair.adminToken), {
      origin: pair.b.base,
    });
    sockets.push(onA, onB);

    // Joined from B (whichever instance leads): the lobby keeps the car one more turn (10 minutes).
    const lobbyEnd = new Date(Date.parse(nominal as string) + 10 * MINUTE).toISOString();
    const inLobby = (s: State) => s.race_status === 'lobby' && s.participants.some((p) => p.carId === carId);
    const lobbies = Promise.all([raceState(onA, inLobby), raceState(onB, inLobby)]);
    onB.send({ type: 'join_lobby', carId });
    for (const lobby of await lobbies) expect(lobby.participants[0]?.sessionEndsAt).toBe(lobbyEnd);
    expect(await bothSay(carId, (end) => end === lobbyEnd)).toEqual([lobbyEnd, lobbyEnd]);

    // Started from A: until the race ends (3 minutes after a 5-second countdown, and the margin).
    const counting = Promise.all(
      [onA, onB].map((socket) => raceState(socket, (s) => s.race_status === 'countdown')),
    );
    const startedAt = Date.now();
    await apiCall(pair.a.base, 'POST', '/admin/race/start', undefined, pair.adminToken);
    for (const countdown of await counting) expect(countdown.participants[0]?.sessionEndsAt).toBeNull();
    const kept = (end: string | null) => end !== null && Date.parse(end) >= startedAt + 5_000 + 3 * MINUTE;
    const ends = await bothSay(carId, kept);
    expect(ends.every(kept), String(ends)).toBe(true);

    // Ended from B: the session ends with it, on both.
    const told = Promise.all([onA, onB].map((socket) => socket.nextOfType('force_disconnect', 10_000)));
    await apiCall(pair.b.base, 'POST', '/admin/race/end', undefined, pair.adminToken);
    for (const message of await told) expect(message.reason).toBe('race_ended');
    expect(await bothSay(carId, (end) => end === null)).toEqual([null, null]);
  }, 60_000);
});
