import { randomUUID } from 'node:crypto';
import {
  CONTROL_LIMITS,
  DISCONNECT_REASONS,
  type EventServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../test/clock.js';
import { authHeader, buildAdmin, buildSession, buildUser, tokenFor } from '../../test/factories.js';
import {
  eventsUrl,
  openSocket,
  originOf,
  refusedStatus,
  settle,
  startListeningTestApp,
  useListeningTestApp,
} from '../../test/sockets.js';
import { REFRESH_COOKIE } from '../auth/auth.routes.js';
import { EVENT_KEEPALIVE } from './race-feed.socket.js';

const testApp = useListeningTestApp();

const url = (token: string) => eventsUrl(testApp.host, token);

/** An access token of the member (see tokenFor: `seconds`, `session`). */
const accessToken = (
  app: FastifyInstance,
  userId: number,
  options: { seconds?: number; session?: string } = {},
) => tokenFor(app, { id: userId }, options);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('event socket /api/race-ws', () => {
  it('refuses a bad token (401), a banned member (401) and a foreign or missing Origin (403)', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    expect(await refusedStatus(openSocket(url('not-a-token'), originOf(app)))).toBe(401);
    expect(await refusedStatus(openSocket(`ws://${testApp.host}/api/race-ws`, originOf(app)))).toBe(401);
    expect(await refusedStatus(openSocket(url(token), { origin: 'https://evil.example' }))).toBe(403);
    expect(await refusedStatus(openSocket(url(token)))).toBe(403);
    // Only PUBLIC_URL's origin: not the address the request was made to, nor a rebound domain
    // that sends a matching Host.
    expect(await refusedStatus(openSocket(url(token), { origin: `http://${testApp.host}` }))).toBe(403);
    expect(
      await refusedStatus(
        openSocket(url(token), { origin: 'http://rebound.example', host: 'rebound.example' }),
      ),
    ).toBe(403);
    const banned = await buildUser(app.database.db, { isBanned: true });
    expect(await refusedStatus(openSocket(url(await tokenFor(app, banned)), originOf(app)))).toBe(401);
  });

  it('answers get_current_state and ping, and drops malformed messages', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const socket = await openSocket(url(await tokenFor(app, member)), originOf(app));
    socket.send({ type: 'get_current_state' });
    const state = await socket.nextOfType('race_state_update');
    expect(state.payload).toMatchObject({ race_status: 'idle', raffle_status: 'closed', participants: [] });
    const before = { ...app.raceFeedSockets.dropped };
    socket.send('nope');
    socket.send({ type: 'dance' });
    socket.send({ type: 'ping' });
    socket.send({ type: 'ping', timestamp: 1234 });
    expect(await socket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 1234 });
    expect(app.raceFeedSockets.dropped.invalidJson - before.invalidJson).toBe(1);
    expect(app.raceFeedSockets.dropped.unknownType - before.unknownType).toBe(1);
    expect(app.raceFeedSockets.dropped.invalidMessage - before.invalidMessage).toBe(1);
    await socket.close();
  });

  it('a ban sends force_disconnect {reason: banned} and closes every socket of the member', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const admin = await buildAdmin(app.database.db);
    const token = await tokenFor(app, member);
    const sockets = [
      await openSocket(url(token), originOf(app)),
      await openSocket(url(token), originOf(app)),
    ];
    const bystander = await openSocket(url(await tokenFor(app, admin)), originOf(app));
    await expect.poll(() => app.raceFeedSockets.count(member.id)).toBe(2);
    const response = await app.inject({
      method: 'POST',
      url: `/api/admin/users/${member.id}/ban`,
      headers: await authHeader(app, admin),
      payload: { ban: true },
    });
    expect(response.statusCode).toBe(200);
    for (const socket of sockets) {
      expect(await socket.nextOfType('force_disconnect')).toEqual({
        type: 'force_disconnect',
        reason: 'banned',
      });
      expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
    }
    expect(app.raceFeedSockets.count(member.id)).toBe(0);
    bystander.send({ type: 'ping', timestamp: 1 });
    expect(await bystander.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 1 });
    await bystander.close();
  });

  it('an account deleted by an admin sends force_disconnect {reason: account_deleted}, a reason the web translates', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const admin = await buildAdmin(app.database.db);
    const socket = await openSocket(url(await tokenFor(app, member)), originOf(app));
    const response = await app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${member.id}`,
      headers: await authHeader(app, admin),
    });
    expect(response.statusCode, response.body).toBe(200);
    const message = await socket.nextOfType('force_disconnect');
    expect(message).toEqual({ type: 'force_disconnect', reason: 'account_deleted' });
    expect(DISCONNECT_REASONS).toContain(message.reason);
    expect(await socket.closed).toEqual({
      code: SOCKET_CLOSE_CODES.forceDisconnect,
      reason: 'account_deleted',
    });
  });

  it('is not counted by the /api rate limiter', async () => {
    const limited = await startListeningTestApp({}, { rateLimit: { max: 2, timeWindowMs: 60_000 } });
    try {
      const member = await buildUser(limited.app.database.db);
      const token = await tokenFor(limited.app, member);
      // Twice the budget in sockets: each opens and answers (a counted upgrade would be refused 429).
      for (let i = 0; i < 4; i += 1) {
        const socket = await openSocket(eventsUrl(limited.host, token), originOf(limited.app));
        socket.send({ type: 'ping', timestamp: i });
        expect(await socket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: i });
        await socket.close();
      }
      // The limiter is on, and the sockets took none of its budget: the same address still has
      // its two /api requests, then is refused.
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await fetch(`http://${limited.host}/api/health`)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  // Expiry and renewal with a newer token, on the server's clock: auth/access-token-expiry.test.ts.
  it.each([
    ['another member', 'other'],
    ['an invalid', 'invalid'],
    ['an older', 'older'],
    ['an expired', 'expired'],
  ] as const)('auth with %s token closes the socket (tokenExpired)', async (_label, kind) => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const socket = await openSocket(url(await accessToken(app, member.id, { seconds: 60 })), originOf(app));
    const token =
      kind === 'other'
        ? await accessToken(app, (await buildUser(app.database.db)).id, { seconds: 120 })
        : kind === 'invalid'
          ? 'not-a-token'
          : kind === 'older'
            ? await accessToken(app, member.id, { seconds: 10 })
            : await accessToken(app, member.id, { seconds: -5 });
    socket.send({ type: 'auth', token });
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.tokenExpired);
    expect(socket.messages.some((m) => m.type === 'auth_ok')).toBe(false);
  });

  it('drops a client that stops reading instead of buffering for it', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const reader = await openSocket(url(await tokenFor(app, member)), originOf(app));
    const bystander = await openSocket(url(await tokenFor(app, member)), originOf(app));
    await expect.poll(() => app.raceFeedSockets.count(member.id)).toBe(2);
    const before = app.raceFeedSockets.dropped.slowReaders;
    // The client stops reading: its kernel buffers fill, then the server's queue grows.
    (reader.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = { type: 'race_state_update', payload: { padding: 'x'.repeat(64 * 1024) } };
    let pushed = 0;
    while (app.raceFeedSockets.dropped.slowReaders === before && pushed < 2_000) {
      // Only to the paused socket's member; the bystander reads everything.
      app.raceFeedSockets.sendToUser(member.id, big as EventServerMessage);
      pushed += 1;
      if (pushed % 20 === 0) await sleep(10);
    }
    console.info(`[measure] slow reader dropped after ${pushed} messages of 64 KiB`);
    expect(app.raceFeedSockets.dropped.slowReaders).toBe(before + 1);
    await expect.poll(() => app.raceFeedSockets.count(member.id)).toBe(1);
    bystander.send({ type: 'ping', timestamp: 3 });
    expect(await bystander.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 3 });
    reader.ws.terminate();
    await bystander.close();
    expect(CONTROL_LIMITS.maxBufferedBytes).toBe(1_048_576);
  });

  it("a session's revocation closes the sockets of that session only (sessionRevoked)", async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const [ended, kept] = [randomUUID(), randomUUID()];
    const endedSocket = await openSocket(
      url(await accessToken(app, member.id, { session: ended })),
      originOf(app),
    );
    const keptSocket = await openSocket(
      url(await accessToken(app, member.id, { session: kept })),
      originOf(app),
    );
    await expect.poll(() => app.raceFeedSockets.count(member.id)).toBe(2);
    app.events.emit('session.revoked', { userId: member.id, sessionId: ended });
    expect((await endedSocket.closed).code).toBe(SOCKET_CLOSE_CODES.sessionRevoked);
    keptSocket.send({ type: 'ping', timestamp: 5 });
    expect(await keptSocket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 5 });
    await keptSocket.close();
  });

  it('after auth, the socket belongs to the session of the new token', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const [first, second] = [randomUUID(), randomUUID()];
    const socket = await openSocket(
      url(await accessToken(app, member.id, { session: first, seconds: 30 })),
      originOf(app),
    );
    socket.send({ type: 'auth', token: await accessToken(app, member.id, { session: second, seconds: 60 }) });
    await socket.nextOfType('auth_ok');
    app.events.emit('session.revoked', { userId: member.id, sessionId: first });
    socket.send({ type: 'ping', timestamp: 9 });
    expect(await socket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 9 });
    app.events.emit('session.revoked', { userId: member.id, sessionId: second });
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.sessionRevoked);
  });

  it('log-out (POST /api/logout) closes the sockets opened with that session', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const session = await buildSession(app.database.db, member);
    const other = await buildSession(app.database.db, member);
    const socket = await openSocket(
      url(await accessToken(app, member.id, { session: session.familyId })),
      originOf(app),
    );
    const otherSocket = await openSocket(
      url(await accessToken(app, member.id, { session: other.familyId })),
      originOf(app),
    );
    const response = await app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: session.token },
    });
    expect(response.statusCode).toBe(200);
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.sessionRevoked);
    otherSocket.send({ type: 'ping', timestamp: 11 });
    expect(await otherSocket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 11 });
    await otherSocket.close();
  });
});

describe('event socket keepalive, on its own clock', () => {
  const clock = new ManualClock();
  const quietApp = useListeningTestApp({}, { keepaliveClock: clock });

  it('keeps a viewer whose last message came 8 s in: pinged before the 20 s limit, never dropped (issue 39)', async () => {
    const { app, host } = quietApp;
    const member = await buildUser(app.database.db);
    const socket = await openSocket(eventsUrl(host, await tokenFor(app, member)), originOf(app));
    const pingedAt: number[] = [];
    socket.ws.on('ping', () => pingedAt.push(clock.now().getTime()));
    const openedAt = clock.now().getTime();
    clock.advance(8_000);
    socket.send({ type: 'get_current_state' });
    await socket.nextOfType('race_state_update');
    for (let check = 1; check <= 4; check += 1) {
      clock.advance(openedAt + check * EVENT_KEEPALIVE.pingMs - clock.now().getTime());
      await settle(socket.ws);
    }
    expect(pingedAt[0]).toBe(openedAt + EVENT_KEEPALIVE.pingMs);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    await socket.close();
  });
});
