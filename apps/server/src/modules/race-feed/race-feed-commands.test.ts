/**
 * What a member's race commands on the event socket (/api/race-ws) may do to everyone else
 * (issue 23, points 6 and 10), over real sockets on a real server: a participant flooding
 * `ping_update` and `toggle_ready` reaches a bystander as at most ten race states a second, the
 * last one the final state; a member's sockets share one command budget; an account that has not
 * accepted the terms may watch the race but not act on it, drive or open the video socket.
 */
import { CONTROL_LIMITS, ERROR_KEYS, JANUS_PATH, type RaceState } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { authHeader, buildAdmin, buildUser, tokenFor } from '../../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  eventsUrl,
  openSocket,
  originOf,
  type TestSocket,
  takeCar,
  upgradeRefusal,
  useListeningTestApp,
} from '../../test/sockets.js';

const testApp = useListeningTestApp();

type Json = Record<string, unknown>;

const url = (token: string) => eventsUrl(testApp.host, token);
const open = (token: string) => openSocket(url(token), originOf(testApp.app));
const isState = (message: Json) => message.type === 'race_state_update';
const statesOf = (socket: TestSocket) => socket.messages.filter(isState).map((m) => m.payload as RaceState);
const refusals = (socket: TestSocket, errorKey: string) =>
  socket.messages.filter((m) => m.type === 'error' && m.errorKey === errorKey).length;

/** Every message sent so far on the socket has been read by the server: a ping's pong comes after them. */
async function drained(socket: TestSocket, stamp: number): Promise<void> {
  socket.send({ type: 'ping', timestamp: stamp });
  await socket.next((m) => m.type === 'pong' && m.timestamp === stamp);
}

/** A car online, held by a new member who has `sockets` event sockets open. */
async function participantWithCar(sockets: number) {
  const { app, host } = testApp;
  const driving = await createCar(app);
  await connectCar(host, driving.carId, driving.secret);
  const taken = await takeCar(app, driving);
  const events = await Promise.all(Array.from({ length: sockets }, () => open(taken.accessToken)));
  return { carId: driving.carId, driver: taken.driver, events };
}

describe('race commands on the event socket', () => {
  it('a participant flooding ping_update and toggle_ready reaches a bystander as ≤ 10 states a second, the last one final', async () => {
    const { app } = testApp;
    const { carId, driver, events } = await participantWithCar(CONTROL_LIMITS.eventSocketsPerMember);
    const bystander = await open(await tokenFor(app, await buildUser(app.database.db)));
    events[0]?.send({ type: 'join_lobby', carId });
    await bystander.next(
      (m) => isState(m) && (m.payload as RaceState).participants.some((p) => p.userId === driver.id),
    );
    const framesBefore = statesOf(bystander).length;

    // 1,000 pings with new values and 200 toggles, in turn on the member's sockets, as fast as the
    // per-socket limit (maxMessagesPerSecond, fixed one-second windows) lets them through.
    // Under half the limit per burst, a second apart: even two bursts read in one window pass.
    const perSocketPerWindow = Math.floor(CONTROL_LIMITS.maxMessagesPerSecond / 2) - 2;
    const commands = Array.from({ length: 1_200 }, (_, i) =>
      i % 6 === 5 ? { type: 'toggle_ready' } : { type: 'ping_update', latency: 1_000 + i },
    );
    const started = performance.now();
    for (let sent = 0; sent < commands.length; ) {
      const windowStart = performance.now();
      const burst = commands.slice(sent, sent + perSocketPerWindow * events.length);
      for (const [i, command] of burst.entries()) events[i % events.length]?.send(command);
      sent += burst.length;
      if (sent < commands.length)
        await new Promise((resolve) => setTimeout(resolve, windowStart + 1_000 - performance.now()));
    }
    await Promise.all(events.map((socket, i) => drained(socket, i)));
    await app.race.settled();
    const final = app.race.state();
    await expect.poll(() => statesOf(bystander).at(-1), { timeout: 2_000 }).toEqual(final);
    const seconds = (performance.now() - started) / 1_000;
    const frames = statesOf(bystander).length - framesBefore;
    console.info(`[measure] flood of 1,200 commands over ${seconds.toFixed(2)} s: ${frames} race states`);
    expect(frames).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 3);
    expect(events.every((socket) => socket.ws.readyState === socket.ws.OPEN)).toBe(true);
  });

  it(`a member's event sockets share one budget of ${CONTROL_LIMITS.eventCommandsPerMember} commands per window; the rest are refused, the sockets stay open`, async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    const sockets = await Promise.all(
      Array.from({ length: CONTROL_LIMITS.eventSocketsPerMember }, () => open(token)),
    );
    // Twice the budget, well under every socket's own limit: 8 commands each.
    const sent = CONTROL_LIMITS.eventCommandsPerMember * 2;
    for (let i = 0; i < sent; i += 1) sockets[i % sockets.length]?.send({ type: 'ping_update', latency: i });
    await Promise.all(sockets.map((socket, i) => drained(socket, i)));
    const refused = () => sockets.reduce((n, socket) => n + refusals(socket, ERROR_KEYS.tooManyRequests), 0);
    await expect.poll(refused).toBe(sent - CONTROL_LIMITS.eventCommandsPerMember);
    // Reading is not a command: the state still comes, and every socket is still open.
    sockets[0]?.send({ type: 'get_current_state' });
    await sockets[0]?.nextOfType('race_state_update');
    await Promise.all(sockets.map((socket, i) => drained(socket, 100 + i)));
  });
});

describe('leaving the lobby (issue 25)', () => {
  it('a driver who only wants to drive leaves the lobby: not counted in ready/total, keeps the car; refused outside the lobby', async () => {
    const { app } = testApp;
    const first = await participantWithCar(1);
    const second = await participantWithCar(1);
    const [a] = first.events as [TestSocket];
    const [b] = second.events as [TestSocket];
    // Outside the lobby there is nothing to leave.
    a.send({ type: 'leave_lobby' });
    await a.next((m) => m.type === 'error' && m.errorKey === ERROR_KEYS.notInLobby);

    // The lobby may hold earlier tests' pilots (one app for the file): counts are relative.
    const mineIn = (state: RaceState, driverId: number) =>
      state.participants.some((p) => p.userId === driverId);
    a.send({ type: 'join_lobby', carId: first.carId });
    b.send({ type: 'join_lobby', carId: second.carId });
    const both = (
      await b.next(
        (m) =>
          isState(m) &&
          mineIn(m.payload as RaceState, first.driver.id) &&
          mineIn(m.payload as RaceState, second.driver.id),
      )
    ).payload as RaceState;
    b.send({ type: 'toggle_ready' });
    const readied = (
      await a.next((m) => isState(m) && (m.payload as RaceState).readyCount === both.readyCount + 1)
    ).payload as RaceState;

    a.send({ type: 'leave_lobby' });
    const after = (await b.next((m) => isState(m) && !mineIn(m.payload as RaceState, first.driver.id)))
      .payload as RaceState;
    expect(after).toMatchObject({
      race_status: 'lobby',
      readyCount: readied.readyCount,
      totalParticipants: readied.totalParticipants - 1,
    });
    // Still the car's driver: leaving the race is not leaving the car.
    const cars = await app.inject({
      method: 'GET',
      url: '/api/admin/cars',
      headers: await authHeader(app, await buildAdmin(app.database.db)),
    });
    expect(
      (cars.json() as { id: number; current_user_id: number | null }[]).find((c) => c.id === first.carId)
        ?.current_user_id,
    ).toBe(first.driver.id);
    // It may join again.
    a.send({ type: 'join_lobby', carId: first.carId });
    await b.next((m) => isState(m) && mineIn(m.payload as RaceState, first.driver.id));
  });
});

describe('an account whose registration is incomplete (terms not accepted)', () => {
  it('may watch the race but not act: its race commands, controller and video sockets are refused as on REST; after the terms it joins', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    await connectCar(host, driving.carId, driving.secret);
    // As a prize claim leaves it: a social sign-up holding a car, the terms not yet accepted.
    const member = await buildUser(app.database.db, { password: null, termsAcceptedAt: null });
    const assigned = await app.drivingSessions.assignFreeCar(member);
    expect(assigned?.car.id).toBe(driving.carId);
    const token = await tokenFor(app, member);
    const socket = await open(token);

    socket.send({ type: 'join_lobby', carId: driving.carId });
    socket.send({ type: 'toggle_ready' });
    socket.send({ type: 'ping_update', latency: 12 });
    await drained(socket, 1);
    await expect.poll(() => refusals(socket, ERROR_KEYS.registrationIncomplete)).toBe(3);
    await app.race.settled();
    const inRace = (state: RaceState) => state.participants.some((p) => p.userId === member.id);
    expect(inRace(app.race.state())).toBe(false);
    socket.send({ type: 'get_current_state' });
    expect(inRace((await socket.nextOfType('race_state_update')).payload as RaceState)).toBe(false);

    // The controller and video sockets refuse it too, before the upgrade, with the same key.
    for (const door of [
      controllerUrl(host, driving.carId, token, assigned?.controlToken ?? ''),
      `ws://${host}${JANUS_PATH}?token=${encodeURIComponent(token)}`,
    ]) {
      const refused = await upgradeRefusal(door, originOf(app).origin);
      expect(refused.status, door).toBe(403);
      expect(refused.body).toMatchObject({ errorKey: ERROR_KEYS.registrationIncomplete });
    }

    const completed = await app.inject({
      method: 'POST',
      url: '/api/auth/complete-registration',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(completed.statusCode, completed.body).toBe(200);
    socket.send({ type: 'join_lobby', carId: driving.carId });
    const joined = await socket.next((m) => isState(m) && inRace(m.payload as RaceState));
    expect(joined.payload).toMatchObject({ race_status: 'lobby' });
  });
});

describe('the last one out of the lobby (issue 25)', () => {
  it('the last driver to leave keeps the car too: the emptied lobby closes without ending their session', async () => {
    const { app } = testApp;
    const adminHeaders = await authHeader(app, await buildAdmin(app.database.db));
    // An empty lobby to start from: an admin ends the one earlier tests left (their drivers lose
    // their cars: last in the file, so no later test counts on the cars held).
    await app.inject({ method: 'POST', url: '/api/admin/race/end', headers: adminHeaders });
    const alone = await participantWithCar(1);
    const [socket] = alone.events as [TestSocket];
    socket.send({ type: 'join_lobby', carId: alone.carId });
    await socket.next((m) => isState(m) && (m.payload as RaceState).totalParticipants === 1);
    socket.send({ type: 'leave_lobby' });
    await socket.next((m) => isState(m) && (m.payload as RaceState).race_status === 'idle');
    await app.race.settled();
    const cars = await app.inject({ method: 'GET', url: '/api/admin/cars', headers: adminHeaders });
    expect(
      (cars.json() as { id: number; current_user_id: number | null }[]).find((c) => c.id === alone.carId)
        ?.current_user_id,
    ).toBe(alone.driver.id);
    expect(socket.messages.filter((m) => m.type === 'force_disconnect')).toEqual([]);
  });
});
