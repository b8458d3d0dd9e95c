import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildAdmin, buildUser, tokenFor } from '../../test/factories.js';
import { listen, openSocket, originOf, refusedStatus } from '../../test/sockets.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let host: string;
beforeAll(async () => {
  testApp = await startTestApp();
  host = await listen(testApp.app);
});
afterAll(() => testApp.close());

const url = (token: string) => `ws://${host}/api/race-ws?token=${encodeURIComponent(token)}`;

describe('event socket /api/race-ws', () => {
  it('refuses a bad token (401), a banned member (401) and a foreign or missing Origin (403)', async () => {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    expect(await refusedStatus(openSocket(url('not-a-token'), originOf(app)))).toBe(401);
    expect(await refusedStatus(openSocket(`ws://${host}/api/race-ws`, originOf(app)))).toBe(401);
    expect(await refusedStatus(openSocket(url(token), { origin: 'https://evil.example' }))).toBe(403);
    expect(await refusedStatus(openSocket(url(token)))).toBe(403);
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
    const before = { ...app.eventSockets.dropped };
    socket.send('nope');
    socket.send({ type: 'dance' });
    socket.send({ type: 'ping' });
    socket.send({ type: 'ping', timestamp: 1234 });
    expect(await socket.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 1234 });
    expect(app.eventSockets.dropped.invalidJson - before.invalidJson).toBe(1);
    expect(app.eventSockets.dropped.unknownType - before.unknownType).toBe(1);
    expect(app.eventSockets.dropped.invalidMessage - before.invalidMessage).toBe(1);
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
    await expect.poll(() => app.eventSockets.count(member.id)).toBe(2);
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
    expect(app.eventSockets.count(member.id)).toBe(0);
    bystander.send({ type: 'ping', timestamp: 1 });
    expect(await bystander.nextOfType('pong')).toEqual({ type: 'pong', timestamp: 1 });
    await bystander.close();
  });

  it('is not counted by the /api rate limiter', async () => {
    const limited = await startTestApp({}, { rateLimit: { max: 2, timeWindowMs: 60_000 } });
    try {
      const limitedHost = await listen(limited.app);
      const member = await buildUser(limited.app.database.db);
      const token = await tokenFor(limited.app, member);
      for (let i = 0; i < 4; i += 1) {
        const socket = await openSocket(
          `ws://${limitedHost}/api/race-ws?token=${encodeURIComponent(token)}`,
          originOf(limited.app),
        );
        await socket.close();
      }
    } finally {
      await limited.close();
    }
  });
});
