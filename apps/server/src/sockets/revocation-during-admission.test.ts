/**
 * A revocation that lands while a member's socket is being admitted still closes it (issue 24).
 * The admission is held at its database read (`holdReads`, test/database-hiccup.ts), the
 * member's sessions (or the one session) are revoked meanwhile — the fact, as another instance's
 * ban or log-out arrives — and the socket, once open, is closed at once with the revocation's
 * code instead of living until its access token expires. The /janus socket's case runs against a
 * real Janus in modules/video/viewer-eviction.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { holdReads } from '../test/database-hiccup.js';
import { buildUser, tokenFor } from '../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  eventsUrl,
  openSocket,
  originOf,
  type TestSocket,
  takeCar,
  useListeningTestApp,
} from '../test/sockets.js';

const testApp = useListeningTestApp();

/**
 * Places held by the tests' address: a browser socket takes one at the first step of its
 * admission, before the reads that wait, and gives it back when its connection ends.
 */
const placesHeld = () => testApp.app.socketAdmission.heldByAddress('127.0.0.1');

/** Every socket a test opened: gone before the next test counts places again. */
const opened: TestSocket[] = [];
const open = async (url: string) => {
  const socket = await openSocket(url, originOf(testApp.app));
  opened.push(socket);
  return socket;
};
afterEach(async () => {
  for (const socket of opened.splice(0)) socket.ws.terminate();
  await expect.poll(placesHeld).toBe(0);
});

/** How the open socket answers a ping: it is closed (code and reason), or it answers. */
function answerToPing(socket: TestSocket, ping: object, pong: string) {
  socket.send(ping);
  return Promise.race([socket.closed, socket.nextOfType(pong).then(() => 'answered' as const)]);
}

describe('a revocation while a socket is being admitted', () => {
  it('closes the event socket admitted meanwhile (forceDisconnect, after force_disconnect)', async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    // The admission reads the member's row (the user cache has not seen them yet): it waits there.
    const held = await holdReads(app.database.db, 'users');
    const opening = open(eventsUrl(host, token));
    await expect.poll(placesHeld).toBe(1);
    app.events.emit('user.sessions-revoked', { userId: member.id, reason: 'banned' });
    await held.release();

    const socket = await opening;
    expect(await answerToPing(socket, { type: 'ping', timestamp: 1 }, 'pong')).toEqual({
      code: SOCKET_CLOSE_CODES.forceDisconnect,
      reason: 'banned',
    });
    expect(socket.messages).toEqual([{ type: 'force_disconnect', reason: 'banned' }]);
    expect(app.raceFeedSockets.count(member.id)).toBe(0);
  });

  it('closes the controller socket admitted meanwhile with that session (sessionRevoked)', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const car = await connectCar(host, driving.carId, driving.secret);
    const { driver, controlToken } = await takeCar(app, driving);
    const session = randomUUID();
    const token = await tokenFor(app, driver, { session });
    // The admission reads the driving session the control token opens: it waits there.
    const held = await holdReads(app.database.db, 'car_sessions');
    const opening = open(controllerUrl(host, driving.carId, token, controlToken));
    await expect.poll(placesHeld).toBe(1);
    app.events.emit('session.revoked', { userId: driver.id, sessionId: session });
    await held.release();

    const controller = await opening;
    expect(
      await answerToPing(controller, { type: 'controller-ping', timestamp: 1 }, 'controller-pong'),
    ).toEqual({ code: SOCKET_CLOSE_CODES.sessionRevoked, reason: 'session_revoked' });
    // The car was told to stop when its driver left.
    await car.nextOfType('stop');
    car.ws.terminate();
  });

  it('leaves a socket admitted after the revocation open (a fresh sign-in)', async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    app.events.emit('user.sessions-revoked', { userId: member.id, reason: 'password_changed' });
    const socket = await open(eventsUrl(host, await tokenFor(app, member)));
    expect(await answerToPing(socket, { type: 'ping', timestamp: 2 }, 'pong')).toBe('answered');
  });
});
