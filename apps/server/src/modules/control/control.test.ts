import {
  BROWSER_PROTOCOL_VERSION,
  CAR_PROTOCOL_VERSION,
  CONTROL_LIMITS,
  ERROR_KEYS,
  MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { carSessions } from '../../db/schema.js';
import {
  authHeader,
  buildAdmin,
  buildSession,
  buildUser,
  TEST_PASSWORD,
  tokenFor,
} from '../../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  type Driving,
  driveCar,
  eventsUrl,
  openSocket,
  originOf,
  refusedStatus,
  type TestSocket,
  takeCar,
  useListeningTestApp,
} from '../../test/sockets.js';
import { REFRESH_COOKIE } from '../auth/auth.routes.js';

const testApp = useListeningTestApp();

/** A car connected over the socket and a driver holding it with an open control socket. */
async function drivingSetup(): Promise<{
  driving: Driving;
  car: TestSocket;
  controller: TestSocket;
  taken: Awaited<ReturnType<typeof takeCar>>;
  events: TestSocket;
}> {
  const { app, host } = testApp;
  const { driving, car, taken, controller } = await driveCar(app, host);
  await controller.nextOfType('car-status');
  const events = await openSocket(eventsUrl(host, taken.accessToken), originOf(app));
  return { driving, car, controller, taken, events };
}

/** An access token of the member (see tokenFor: `seconds`, `session`). */
const accessToken = (
  app: FastifyInstance,
  userId: number,
  options: { seconds?: number; session?: string } = {},
) => tokenFor(app, { id: userId }, options);

/** A car online and a driver (or the given member) holding it, with a control socket opened with `token`. */
async function driveWith(
  token: (userId: number) => Promise<string>,
  user?: Awaited<ReturnType<typeof buildUser>>,
): Promise<{
  driving: Driving;
  car: TestSocket;
  controller: TestSocket;
  taken: Awaited<ReturnType<typeof takeCar>>;
}> {
  const { driving, car, taken, controller } = await driveCar(testApp.app, testApp.host, {
    driver: user,
    accessToken: token,
  });
  await controller.nextOfType('car-status');
  controller.send({ type: 'drive', throttle: 0.6, steer: 0 });
  await car.next((m) => m.type === 'drive' && m.throttle === 0.6);
  return { driving, car, controller, taken };
}

const isNeutral = (m: Record<string, unknown>) =>
  m.type === 'stop' || (m.type === 'drive' && m.throttle === 0 && m.steer === 0);

async function carIsFree(carId: number, headers: { authorization: string }) {
  const response = await testApp.app.inject({ method: 'GET', url: `/api/cars/${carId}/status`, headers });
  return response.json().current_user_id === null;
}

describe('car sockets', () => {
  it('refuse a wrong or missing secret with 401 at the upgrade', async () => {
    const { carId, secret } = await createCar(testApp.app);
    const url = `ws://${testApp.host}/rcsocket?type=car&car=${carId}`;
    expect(await refusedStatus(openSocket(url))).toBe(401);
    expect(await refusedStatus(openSocket(url, { authorization: 'Bearer nope' }))).toBe(401);
    expect(
      await refusedStatus(
        openSocket(`ws://${testApp.host}/rcsocket?type=car&car=999999`, {
          authorization: `Bearer ${secret}`,
        }),
      ),
    ).toBe(401);
  });

  it('answer hello with welcome {config}, and a version outside the supported range with incompatible {reason}', async () => {
    const { carId, secret } = await createCar(testApp.app);
    const supported = { min: MIN_SUPPORTED_CAR_PROTOCOL_VERSION, max: CAR_PROTOCOL_VERSION };
    const refusals = [
      { protocolVersion: CAR_PROTOCOL_VERSION + 1, reason: 'server_too_old' },
      { protocolVersion: MIN_SUPPORTED_CAR_PROTOCOL_VERSION - 1, reason: 'client_too_old' },
    ];
    for (const { protocolVersion, reason } of refusals) {
      const car = await openSocket(`ws://${testApp.host}/rcsocket?type=car&car=${carId}`, {
        authorization: `Bearer ${secret}`,
      });
      car.send({ type: 'hello', protocolVersion, agentVersion: 'some' });
      expect(await car.nextOfType('incompatible')).toEqual({ type: 'incompatible', reason, supported });
      expect((await car.closed).code).toBe(SOCKET_CLOSE_CODES.incompatible);
    }

    const good = await connectCar(testApp.host, carId, secret);
    expect(good.messages[0]).toEqual({
      type: 'welcome',
      config: { forwardSpeedPercent: 100, backwardSpeedPercent: 100, trimValue: 0 },
      // This server answers the car's drive channel offers (issue 42).
      driveChannel: true,
    });
    await good.close();
  });

  it('a second connection for the same car replaces the first', async () => {
    const { carId, secret } = await createCar(testApp.app);
    const first = await connectCar(testApp.host, carId, secret);
    const second = await connectCar(testApp.host, carId, secret);
    expect((await first.closed).code).toBe(SOCKET_CLOSE_CODES.replaced);
    expect(testApp.app.carRelay.isOnline(carId)).toBe(true);
    await second.close();
    await expect.poll(() => testApp.app.carRelay.isOnline(carId)).toBe(false);
  });

  it('rotate-secret closes the current socket and the old secret is refused with 401', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const car = await connectCar(host, driving.carId, driving.secret);
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/rotate-secret`,
      headers: driving.adminHeaders,
    });
    expect(response.statusCode).toBe(200);
    const { secret } = response.json() as { secret: string };
    expect((await car.closed).code).toBe(SOCKET_CLOSE_CODES.carRevoked);
    const url = `ws://${host}/rcsocket?type=car&car=${driving.carId}`;
    expect(await refusedStatus(openSocket(url, { authorization: `Bearer ${driving.secret}` }))).toBe(401);
    const fresh = await connectCar(host, driving.carId, secret);
    await fresh.close();
  });

  it('forward admin commands and config to the car', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const car = await connectCar(host, driving.carId, driving.secret);
    const command = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/command`,
      headers: driving.adminHeaders,
      payload: { command: 'reboot' },
    });
    expect(command.statusCode).toBe(200);
    expect(await car.nextOfType('command')).toEqual({ type: 'command', command: 'reboot' });
    const settings = { forwardSpeedPercent: 60, backwardSpeedPercent: 40, trimValue: 5 };
    await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/config`,
      headers: driving.adminHeaders,
      payload: settings,
    });
    expect(await car.nextOfType('config')).toEqual({ type: 'config', settings });
    await car.close();
  });
});

describe('controller sockets', () => {
  it("accept PUBLIC_URL's origin only: not the address the request was made to, nor a rebound domain", async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const taken = await takeCar(app, driving);
    const url = controllerUrl(host, driving.carId, taken.accessToken, taken.controlToken);
    expect(await refusedStatus(openSocket(url, { origin: `http://${host}` }))).toBe(403);
    expect(
      await refusedStatus(openSocket(url, { origin: 'http://rebound.example', host: 'rebound.example' })),
    ).toBe(403);
    const socket = await openSocket(url, originOf(app));
    await socket.close();
  });

  it('are refused without a valid access token, control token, or Origin', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const other = await createCar(app);
    const taken = await takeCar(app, driving);
    const good = controllerUrl(host, driving.carId, taken.accessToken, taken.controlToken);
    const stranger = await buildUser(app.database.db);
    const strangerToken = await tokenFor(app, stranger);

    expect(await refusedStatus(openSocket(good, { origin: 'https://evil.example' }))).toBe(403);
    expect(await refusedStatus(openSocket(good, { origin: `https://${host}` }))).toBe(403);
    expect(await refusedStatus(openSocket(good))).toBe(403);
    expect(
      await refusedStatus(
        openSocket(controllerUrl(host, driving.carId, 'bad', taken.controlToken), originOf(app)),
      ),
    ).toBe(401);
    expect(
      await refusedStatus(
        openSocket(controllerUrl(host, driving.carId, taken.accessToken, 'wrong'), originOf(app)),
      ),
    ).toBe(403);
    // Another member with the driver's control token.
    expect(
      await refusedStatus(
        openSocket(controllerUrl(host, driving.carId, strangerToken, taken.controlToken), originOf(app)),
      ),
    ).toBe(403);
    // The control token of another car.
    expect(
      await refusedStatus(
        openSocket(controllerUrl(host, other.carId, taken.accessToken, taken.controlToken), originOf(app)),
      ),
    ).toBe(403);
    // An expired session.
    await app.database.db
      .update(carSessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(carSessions.userId, taken.driver.id));
    expect(await refusedStatus(openSocket(good, originOf(app)))).toBe(403);
  });

  it('drive is forwarded at once with a growing seq, and repeated as a heartbeat', async () => {
    const { driving, car, controller, events, taken } = await drivingSetup();
    controller.send({ type: 'drive', throttle: 0.5, steer: -0.25 });
    const first = await car.next((m) => m.type === 'drive' && m.throttle === 0.5);
    expect(first).toMatchObject({ throttle: 0.5, steer: -0.25 });
    const repeats = [await car.nextOfType('drive'), await car.nextOfType('drive')];
    for (const repeat of repeats) expect(repeat).toMatchObject({ throttle: 0.5, steer: -0.25 });
    const seqs = [first, ...repeats].map((m) => m.seq as number);
    expect(seqs[1]).toBeGreaterThan(seqs[0] as number);
    expect(seqs[2]).toBeGreaterThan(seqs[1] as number);

    controller.send({ type: 'controller-ping', timestamp: 42 });
    expect(await controller.nextOfType('controller-pong')).toEqual({
      type: 'controller-pong',
      timestamp: 42,
    });
    // No credential of the sockets ever reaches the log.
    const log = testApp.logText();
    for (const secret of [driving.secret, taken.controlToken, taken.accessToken])
      expect(log).not.toContain(secret);
    await controller.close();
    await car.close();
    await events.close();
  });

  it('a car driven faster than the heartbeat hears each drive once, no repetitions; slower, it hears from the server within 2 heartbeats', async () => {
    const { car, controller, events } = await drivingSetup();
    const heard = (from: number) => car.messages.slice(from).filter((m) => m.type === 'drive');
    // 40 drives 20 ms apart (a driver at 50 per second): those 40 reach the car, and nothing
    // else — except a repetition where this process itself paused past a heartbeat period.
    const start = car.messages.length;
    let sentAt = performance.now();
    let pauses = 0;
    for (let i = 1; i <= 40; i++) {
      controller.send({ type: 'drive', throttle: i / 100, steer: 0 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = performance.now();
      if (now - sentAt > CONTROL_LIMITS.driveHeartbeatMs - 10) pauses += 1;
      sentAt = now;
    }
    await car.next((m) => m.type === 'drive' && m.throttle === 0.4);
    const throttles = heard(start).map((m) => m.throttle);
    expect([...new Set(throttles)]).toEqual(Array.from({ length: 40 }, (_, i) => (i + 1) / 100));
    expect(throttles.length - 40).toBeLessThanOrEqual(pauses);
    // Then silence from the driver: the heartbeat repeats the last drive, never 2 periods apart.
    const quietFrom = car.messages.length;
    let last = performance.now();
    let longestGap = 0;
    for (let repeats = 0; repeats < 5; repeats++) {
      await car.nextOfType('drive');
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }
    expect(heard(quietFrom).every((m) => m.throttle === 0.4)).toBe(true);
    // 2 periods (200 ms) by design, with margin for a loaded machine; the car's deadman is 500 ms.
    expect(longestGap).toBeLessThan(2 * CONTROL_LIMITS.driveHeartbeatMs + 150);
    await controller.close();
    await car.close();
    await events.close();
  });

  it('closing the controller sends the car neutral at once and keeps the car held', async () => {
    const { driving, car, controller, events } = await drivingSetup();
    controller.send({ type: 'drive', throttle: 1, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === 1);
    const closedAt = performance.now();
    controller.ws.close();
    await car.next((m) => m.type === 'stop');
    const delay = performance.now() - closedAt;
    console.info(`[measure] controller close → car stop: ${delay.toFixed(1)} ms`);
    // Nothing repeated after the stop.
    const after = car.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 3 * CONTROL_LIMITS.driveHeartbeatMs));
    expect(car.messages.slice(after).filter((m) => m.type === 'drive')).toEqual([]);
    expect(await carIsFree(driving.carId, driving.adminHeaders)).toBe(false);
    await car.close();
    await events.close();
  });

  it('a silent controller is treated as gone and the car stops', async () => {
    const { car, controller } = await driveCar(testApp.app, testApp.host);
    // A peer that stops answering pings: pause the socket so ws stops reading (and ponging).
    controller.send({ type: 'drive', throttle: 0.3, steer: 0 });
    await car.next((m) => m.type === 'drive');
    (controller.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await car.next((m) => m.type === 'stop', CONTROL_LIMITS.controllerSilenceMs + 3_000);
    controller.ws.terminate();
    await car.close();
  });

  it('drop malformed, unknown and out-of-range messages, count them, and stay open', async () => {
    const { app } = testApp;
    const { car, controller, events } = await drivingSetup();
    const dropped = app.carRelay.dropped.controller;
    const before = { ...dropped };
    controller.send('{not json');
    controller.send({ type: 'teleport' });
    controller.send({ type: 'drive', throttle: 2, steer: 0 });
    controller.send({ type: 'drive', throttle: 'fast', steer: 0 });
    controller.send([1, 2, 3]);
    controller.send({ type: 'drive', throttle: -0.7, steer: 0.1 });
    await car.next((m) => m.type === 'drive' && m.throttle === -0.7);
    // Each one is answered with the one error message, translatable by its key.
    const errors = controller.messages.filter((m) => m.type === 'error');
    expect(errors).toHaveLength(5);
    for (const error of errors) expect(error.errorKey).toBe(ERROR_KEYS.validation);
    expect(dropped.invalidJson - before.invalidJson).toBe(1);
    expect(dropped.unknownType - before.unknownType).toBe(2);
    expect(dropped.invalidMessage - before.invalidMessage).toBe(2);
    expect(car.messages.some((m) => m.type === 'drive' && (m.throttle === 2 || m.throttle === 'fast'))).toBe(
      false,
    );
    // Larger than maxPayload: the socket is closed (1009), the server lives on.
    controller.send({
      type: 'drive',
      throttle: 0,
      steer: 0,
      pad: 'x'.repeat(CONTROL_LIMITS.maxPayloadBytes),
    });
    expect((await controller.closed).code).toBe(1009);
    await car.close();
    await events.close();
  });

  it('close a controller sending more than 100 messages per second; the server keeps answering', async () => {
    const { app } = testApp;
    const { car, controller, events } = await drivingSetup();
    for (let i = 0; i < 150; i += 1) controller.send({ type: 'drive', throttle: 0.1, steer: 0 });
    expect((await controller.closed).code).toBe(SOCKET_CLOSE_CODES.policy);
    expect(app.carRelay.dropped.controller.rateLimited).toBeGreaterThan(0);
    await car.next((m) => m.type === 'stop');
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    await car.close();
    await events.close();
  });

  it('car settings are saved over REST only: `config` on the control socket is an unknown message, even from an admin', async () => {
    const { app } = testApp;
    const admin = await buildAdmin(app.database.db);
    const { car, controller } = await driveWith((id) => accessToken(app, id), admin);
    const settings = { forwardSpeedPercent: 70, backwardSpeedPercent: 30, trimValue: -3 };
    const before = app.carRelay.dropped.controller.unknownType;
    controller.send({ type: 'config', settings });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    expect(app.carRelay.dropped.controller.unknownType).toBe(before + 1);
    expect(car.messages.some((m) => m.type === 'config')).toBe(false);
    await controller.close();
    await car.close();
  });
});

describe('ending a session', () => {
  it('tells a page of browser protocol 2 car_session_ended, one of protocol 1 force_disconnect, and leaves both sockets open', async () => {
    const { app, host } = testApp;
    const { driving, car, controller, events, taken } = await drivingSetup();
    const current = await openSocket(eventsUrl(host, taken.accessToken), originOf(app));
    current.send({ type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION });
    current.send({ type: 'ping', timestamp: 1 });
    await current.nextOfType('pong');
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(response.statusCode).toBe(200);
    expect(await current.nextOfType('car_session_ended')).toEqual({
      type: 'car_session_ended',
      reason: 'kicked',
    });
    expect(await events.nextOfType('force_disconnect')).toEqual({
      type: 'force_disconnect',
      reason: 'kicked',
    });
    for (const socket of [current, events]) {
      socket.send({ type: 'ping', timestamp: 2 });
      expect(await socket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 2 });
    }
    expect(current.messages.some((m) => m.type === 'force_disconnect')).toBe(false);
    await Promise.all([current, events, controller, car].map((socket) => socket.close()));
  });

  it.each([
    ['kick', 'kicked'],
    ['expiry', 'session_expired'],
    ['delete', 'car_deleted'],
  ] as const)('by %s stops the car, tells the driver (%s) and frees the car', async (how, reason) => {
    const { app, host } = testApp;
    const { driving, car, controller, events, taken } = await drivingSetup();
    controller.send({ type: 'drive', throttle: 0.8, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === 0.8);
    if (how === 'kick') {
      const response = await app.inject({
        method: 'POST',
        url: `/api/admin/cars/${driving.carId}/kick`,
        headers: driving.adminHeaders,
      });
      expect(response.json()).toEqual({ message: 'The driver was disconnected.' });
    } else if (how === 'expiry') {
      await app.database.db
        .update(carSessions)
        .set({ expiresAt: sql`now() - interval '1 second'` })
        .where(eq(carSessions.userId, taken.driver.id));
      await app.drivingSessions.sweepExpired();
    } else {
      const response = await app.inject({
        method: 'DELETE',
        url: `/api/admin/cars/${driving.carId}`,
        headers: driving.adminHeaders,
      });
      expect(response.statusCode).toBe(200);
    }
    await car.next(isNeutral);
    expect(await events.nextOfType('force_disconnect')).toEqual({ type: 'force_disconnect', reason });
    expect((await controller.closed).code).toBe(SOCKET_CLOSE_CODES.sessionEnded);
    const [session] = await app.database.db
      .select()
      .from(carSessions)
      .where(eq(carSessions.userId, taken.driver.id));
    expect(session?.endReason).toBe(reason);
    if (how === 'delete') {
      expect((await car.closed).code).toBe(SOCKET_CLOSE_CODES.carRevoked);
      const list = await app.inject({ method: 'GET', url: '/api/cars', headers: taken.headers });
      expect((list.json() as { id: number }[]).some((c) => c.id === driving.carId)).toBe(false);
    } else {
      expect(await carIsFree(driving.carId, taken.headers)).toBe(true);
      // Another driver can take it with a new code.
      await takeCar(app, driving);
      await car.close();
    }
    // The old control token no longer opens the car.
    expect(
      await refusedStatus(
        openSocket(controllerUrl(host, driving.carId, taken.accessToken, taken.controlToken), originOf(app)),
      ),
    ).toBe(403);
    await events.close();
  });

  it('a session ends by its own timer (1-minute setting, end moved closer in the database)', async () => {
    const { app } = testApp;
    await app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: (await createCar(app)).adminHeaders,
      payload: { car_session_duration_minutes: 1 },
    });
    const { driving, car, events, taken } = await drivingSetup();
    const [session] = await app.database.db
      .select()
      .from(carSessions)
      .where(eq(carSessions.userId, taken.driver.id));
    const minutes = ((session?.expiresAt.getTime() ?? 0) - (session?.startedAt.getTime() ?? 0)) / 60_000;
    expect(minutes).toBeCloseTo(1, 1);
    // Bring the end close to now and re-arm the timers (as a restart does).
    await app.database.db
      .update(carSessions)
      .set({ expiresAt: sql`now() + interval '300 milliseconds'` })
      .where(eq(carSessions.userId, taken.driver.id));
    await app.drivingSessions.resume();
    await car.next(isNeutral);
    expect(await events.nextOfType('force_disconnect')).toEqual({
      type: 'force_disconnect',
      reason: 'session_expired',
    });
    expect(await carIsFree(driving.carId, taken.headers)).toBe(true);
    await car.close();
    await events.close();
  });

  it('kick with nobody driving says so', async () => {
    const { app } = testApp;
    const driving = await createCar(app);
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Nobody was driving this car.' });
  });

  it('a ban ends the session: the car stops, the driver gets force_disconnect banned', async () => {
    const { app } = testApp;
    const { driving, car, events, taken } = await drivingSetup();
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/users/${taken.driver.id}/ban`,
      headers: driving.adminHeaders,
      payload: { ban: true },
    });
    expect(response.statusCode).toBe(200);
    await car.next(isNeutral);
    expect(await events.nextOfType('force_disconnect')).toEqual({
      type: 'force_disconnect',
      reason: 'banned',
    });
    await expect.poll(() => carIsFree(driving.carId, driving.adminHeaders)).toBe(true);
    await car.close();
  });
});

// Its expiry and its renewal with `auth`, on the server's clock: auth/access-token-expiry.test.ts.
describe('the access token of a control socket', () => {
  it("auth with another member's token closes the socket (tokenExpired)", async () => {
    const { app } = testApp;
    const { car, controller } = await driveWith((id) => accessToken(app, id));
    const stranger = await buildUser(app.database.db);
    controller.send({ type: 'auth', token: await accessToken(app, stranger.id, { seconds: 2_000 }) });
    expect((await controller.closed).code).toBe(SOCKET_CLOSE_CODES.tokenExpired);
    await car.next(isNeutral);
    await car.close();
  });

  it('log-out of its session (POST /api/logout) closes it (sessionRevoked) and stops the car', async () => {
    const { app } = testApp;
    const driver = await buildUser(app.database.db);
    const session = await buildSession(app.database.db, driver);
    const { car, controller } = await driveWith(
      (id) => accessToken(app, id, { session: session.familyId }),
      driver,
    );
    const response = await app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: session.token },
    });
    expect(response.statusCode).toBe(200);
    expect((await controller.closed).code).toBe(SOCKET_CLOSE_CODES.sessionRevoked);
    await car.next(isNeutral);
    await car.close();
  });

  it('a password change closes it (forceDisconnect) and stops the car', async () => {
    const { app } = testApp;
    const { car, controller, taken } = await driveWith((id) => accessToken(app, id));
    const response = await app.inject({
      method: 'POST',
      url: '/api/me/password',
      headers: taken.headers,
      payload: { currentPassword: TEST_PASSWORD, newPassword: 'another horse battery staple' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const closed = await controller.closed;
    expect(closed.code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
    await car.next(isNeutral);
    await car.close();
  });
});

describe('a demoted admin', () => {
  it('keeps driving: a role change does not close the control socket', async () => {
    const { app } = testApp;
    const admin = await buildAdmin(app.database.db);
    const { car, controller } = await driveWith((id) => accessToken(app, id), admin);
    const other = await buildAdmin(app.database.db);
    const changes: unknown[] = [];
    const off = app.events.on('user.role-changed', (change) => changes.push(change));
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/users/${admin.id}/toggle-admin`,
      headers: await authHeader(app, other),
      payload: { makeAdmin: false },
    });
    off();
    expect(response.statusCode, response.body).toBe(200);
    expect(changes).toEqual([{ userId: admin.id, isAdmin: false }]);
    controller.send({ type: 'drive', throttle: 0.2, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === 0.2);
    await controller.close();
    await car.close();
  });
});
