/**
 * A race with real processes: a real server process, two real car-agent processes driving the
 * simulator (steering assist on, the agents report their finish-line passes), two drivers holding
 * full throttle over real sockets. The cars stay still during the countdown, lap once it is over;
 * the server process is SIGKILLed mid-race and started again on the same database: the race
 * resumes with every lap counted before the kill, the cars reconnect and lap on, and the results
 * keep them all.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { LiveLeaderboardRow, RaceDetail, RaceState } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestEnvironment, type TestEnvironment } from '../../test/app.js';
import {
  addSimCar,
  apiCall,
  killProcess,
  lineAppears,
  logIn,
  startReadyServer,
  startServerProcess,
  takeCarWithCode,
} from '../../test/process.js';
import { controllerUrl, eventsUrl } from '../../test/sockets.js';

const ADMIN = { email: 'race-admin@telerace.test', password: 'race-admin-Passw0rd!' };
const MEMBER = { email: 'racer@telerace.test', username: 'racer', password: 'racer-Passw0rd!-long' };

type Json = Record<string, unknown> & { type?: string };

const call = apiCall;

/** A socket that keeps what it receives, and waits for a message matching a predicate. */
class Client {
  readonly messages: Json[] = [];
  readonly #waiters = new Set<{ match: (m: Json) => boolean; resolve: (m: Json) => void }>();

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Json;
      this.messages.push(message);
      for (const waiter of [...this.#waiters])
        if (waiter.match(message)) {
          this.#waiters.delete(waiter);
          waiter.resolve(message);
        }
    });
  }

  static async open(url: string, origin: string): Promise<Client> {
    const ws = new WebSocket(url, { headers: { origin }, perMessageDeflate: false });
    const client = new Client(ws);
    await once(ws, 'open');
    return client;
  }

  send(message: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** The next message from now on that matches (earlier ones are not looked at). */
  next(match: (m: Json) => boolean, timeoutMs: number, what: string): Promise<Json> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (m: Json) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.#waiters.add(waiter);
    });
  }
}

const isState = (status: string) => (m: Json) =>
  m.type === 'race_state_update' && (m.payload as RaceState).race_status === status;
const lapsOf = (rows: LiveLeaderboardRow[], carId: number) =>
  rows.find((row) => row.car_id === carId)?.laps ?? 0;

describe('a race with real processes, and a server killed mid-race', () => {
  let environment: TestEnvironment;
  let server: ChildProcess;
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  const timers: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment();
  });
  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
    for (const client of clients) client.ws.terminate();
    for (const child of children) await killProcess(child);
    await environment?.dispose();
  });

  it('countdown holds the cars, laps count, a SIGKILL and a restart lose no lap', async () => {
    const started = await startServerProcess(environment.env, ADMIN);
    const { port, base, env, adminToken: admin } = started;
    server = started.server;
    children.push(server);

    await call(base, 'POST', '/signup', { ...MEMBER, recaptchaToken: '' });
    const member = await logIn(base, MEMBER);
    await call(
      base,
      'PATCH',
      '/admin/settings',
      { race_countdown_seconds: 3, race_length_minutes: 3 },
      admin,
    );

    // Two cars, each with its own real agent process on the simulator.
    const carIds: number[] = [];
    const agents: ChildProcess[] = [];
    for (const name of ['Red', 'Blue']) {
      const { carId, agent } = await addSimCar(base, admin, name);
      children.push(agent);
      agents.push(agent);
      carIds.push(carId);
    }
    const drivers = [
      { token: admin, carId: carIds[0] as number },
      { token: member, carId: carIds[1] as number },
    ];

    // Each driver takes their car once it is online and opens the event and control sockets.
    const open = async (driver: (typeof drivers)[number], controlToken: string) => {
      const host = `127.0.0.1:${port}`;
      const events = await Client.open(eventsUrl(host, driver.token), base);
      const control = await Client.open(controllerUrl(host, driver.carId, driver.token, controlToken), base);
      clients.push(events, control);
      return { events, control };
    };
    const sockets: { events: Client; control: Client; controlToken: string }[] = [];
    for (const driver of drivers) {
      await expect
        .poll(
          async () => {
            const cars = await call<{ id: number; status: string }[]>(
              base,
              'GET',
              '/cars',
              undefined,
              driver.token,
            );
            return cars.find((car) => car.id === driver.carId)?.status;
          },
          { timeout: 30_000 },
        )
        .toBe('online');
      const controlToken = await takeCarWithCode(base, driver.carId, admin, driver.token);
      sockets.push({ ...(await open(driver, controlToken)), controlToken });
    }
    // Lobby, start, countdown: the drivers hold full throttle from the start on (repeated every
    // 100 ms, as the web page's heartbeat does), yet the cars hear neutral and stay still. (Held
    // in the lobby, the throttle would have the cars moving when the countdown begins, and a car
    // left at neutral coasts: how far it got would depend on how long the join took.)
    const viewer = sockets[0]?.events as Client;
    const lobbyFull = viewer.next(
      (m) => m.type === 'race_state_update' && (m.payload as RaceState).totalParticipants === 2,
      10_000,
      'a lobby of two',
    );
    for (const [index, driver] of drivers.entries())
      sockets[index]?.events.send({ type: 'join_lobby', carId: driver.carId });
    await lobbyFull;
    const countdownSpeeds: number[] = [];
    const active = viewer.next(isState('active'), 15_000, 'the race going active');
    const recordSpeed = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString()) as Json;
      if (message.type === 'telemetry')
        countdownSpeeds.push(Math.abs((message.telemetry as { speed?: number }).speed ?? 0));
    };
    sockets[0]?.control.ws.on('message', recordSpeed);
    await call(base, 'POST', '/admin/race/start', undefined, admin);
    for (const index of [0, 1])
      timers.push(
        setInterval(() => sockets[index]?.control.send({ type: 'drive', throttle: 1, steer: 0 }), 100),
      );
    const firstState = (await active).payload as RaceState;
    sockets[0]?.control.ws.off('message', recordSpeed);
    expect(countdownSpeeds.length).toBeGreaterThan(0);
    expect(Math.max(...countdownSpeeds)).toBeLessThan(0.2);

    // Laps: the assist steers, the agents report passes; both drivers complete a lap.
    let seen: LiveLeaderboardRow[] = [];
    await viewer.next(
      (m) => {
        if (m.type !== 'live_leaderboard_update') return false;
        seen = m.data as LiveLeaderboardRow[];
        return drivers.every((driver) => lapsOf(seen, driver.carId) >= 1);
      },
      60_000,
      'a lap by each driver',
    );
    const beforeKill = Object.fromEntries(drivers.map((d) => [d.carId, lapsOf(seen, d.carId)]));

    // The server dies without a word (both cars at full throttle: neutral within the bound of
    // docs/driving.md, 600 ms), and comes back on the same database.
    const neutral = agents.map((agent) => lineAppears(agent, /neutral \(/));
    const killedAt = performance.now();
    server.kill('SIGKILL');
    const neutralAfterMs = (await Promise.all(neutral)).map(({ at }) => at - killedAt);
    console.info(
      `server SIGKILL mid-race → cars neutral: ${neutralAfterMs.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    for (const ms of neutralAfterMs) expect(ms).toBeLessThanOrEqual(600);
    await once(server, 'exit');
    server = await startReadyServer(env, base);
    children.push(server);

    // The race is still on with the same end time; the laps before the kill are all there.
    const reopened = await open(drivers[0] as (typeof drivers)[number], sockets[0]?.controlToken as string);
    const resumedState = reopened.events.next((m) => m.type === 'race_state_update', 10_000, 'the state');
    const resumedBoard = reopened.events.next(
      (m) => m.type === 'live_leaderboard_update',
      10_000,
      'the board',
    );
    reopened.events.send({ type: 'get_current_state' });
    expect(((await resumedState).payload as RaceState).race_status).toBe('active');
    expect(((await resumedState).payload as RaceState).race_expires_at).toBe(firstState.race_expires_at);
    const board = (await resumedBoard).data as LiveLeaderboardRow[];
    for (const driver of drivers)
      expect(lapsOf(board, driver.carId)).toBeGreaterThanOrEqual(beforeKill[driver.carId] ?? 0);

    // The cars reconnect by themselves; the first driver drives on and laps again.
    sockets[0] = { ...reopened, controlToken: sockets[0]?.controlToken as string };
    const target = (beforeKill[drivers[0]?.carId as number] ?? 0) + 1;
    await reopened.events.next(
      (m) =>
        m.type === 'live_leaderboard_update' &&
        lapsOf(m.data as LiveLeaderboardRow[], drivers[0]?.carId as number) >= target,
      60_000,
      'a lap after the restart',
    );

    // Ended: the results keep every lap (before and after the kill), one row per lap number.
    const { state } = await call<{ state: RaceState }>(base, 'POST', '/admin/race/end', undefined, admin);
    expect(state.race_status).toBe('idle');
    const race = await call<RaceDetail>(base, 'GET', `/races/${firstState.race_id}`);
    for (const participant of race.participants) {
      expect(participant.total_laps).toBe(participant.laps.length);
      expect(participant.laps.map((lap) => lap.lap_number)).toEqual(participant.laps.map((_, i) => i + 1));
    }
    const first = race.participants.find((p) => p.car_id === drivers[0]?.carId);
    expect(first?.total_laps).toBeGreaterThanOrEqual(target);
  }, 240_000);
});
