/**
 * Access tokens live by the server's clock (issue 24 point 2): a token is accepted until the
 * instant its `exp` names and refused from that instant on — on REST (the verified-token memo and
 * a first verification alike) and on the sockets opened with it, which close then unless a newer
 * token of the member arrived with `auth`. The clock starts years away from the wall clock, so
 * anything on the way that still read Date.now() or jose's own clock would answer differently.
 */
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { refreshTokens } from '../../db/schema.js';
import { login, signup } from '../../test/auth.js';
import { ManualClock } from '../../test/clock.js';
import { buildUser, tokenFor } from '../../test/factories.js';
import {
  driveCar,
  eventsUrl,
  openSocket,
  originOf,
  type TestSocket,
  useListeningTestApp,
} from '../../test/sockets.js';
import { hashToken } from '../../tokens.js';
import { REFRESH_COOKIE } from './auth.routes.js';

const TTL_SECONDS = 60;
const clock = new ManualClock(new Date('2031-05-04T10:00:00.100Z'));
const t = useListeningTestApp({ ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) }, { clock });

/** Milliseconds from the clock's now to the token's expiry. */
const msLeft = (token: string) => (decodeJwt(token).exp as number) * 1000 - clock.now().getTime();

const me = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/api/me', headers: { authorization: `Bearer ${token}` } });

/** The socket answers a ping: it is open and its messages are handled. */
async function answers(socket: TestSocket, pingType: string, pongType: string): Promise<void> {
  const timestamp = clock.now().getTime();
  socket.send({ type: pingType, timestamp });
  expect(await socket.next((m) => m.type === pongType && m.timestamp === timestamp)).toBeDefined();
}

describe('an access token on REST', () => {
  it('is accepted until the clock reaches its expiry, and refused from then on', async () => {
    const { app } = t;
    const account = await signup(app);
    // Three tokens of the same instant: one presented all along (the memo answers it again), one
    // first presented a millisecond before the expiry, one first presented at the expiry.
    const [early, lastMoment, late] = await Promise.all([
      login(app, account),
      login(app, account),
      login(app, account),
    ]);
    const left = msLeft(early.accessToken);
    expect(left).toBeGreaterThan((TTL_SECONDS - 1) * 1000);
    expect(left).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    expect(msLeft(late.accessToken)).toBe(left);

    expect((await me(app, early.accessToken)).statusCode).toBe(200);
    clock.advance(left - 1);
    expect((await me(app, early.accessToken)).statusCode).toBe(200);
    expect((await me(app, lastMoment.accessToken)).statusCode).toBe(200);
    clock.advance(1);
    for (const { accessToken } of [early, lastMoment, late]) {
      const refused = await me(app, accessToken);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().errorKey).toBe('errors.unauthorized');
    }
    // The session itself goes on: its refresh cookie gets a new token, valid on the same clock.
    const renewed = await app.inject({
      method: 'POST',
      url: '/api/refresh-token',
      cookies: { [REFRESH_COOKIE]: early.refreshToken },
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(msLeft(renewed.json().accessToken)).toBeGreaterThan((TTL_SECONDS - 1) * 1000);
    expect((await me(app, renewed.json().accessToken)).statusCode).toBe(200);
  });

  it('a log-out stores the session’s end at the clock’s now', async () => {
    const { app } = t;
    const session = await login(app, await signup(app));
    clock.advance(1_234);
    const loggedOut = await app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: session.refreshToken },
    });
    expect(loggedOut.statusCode).toBe(200);
    const rows = await app.database.db
      .select({ revokedAt: refreshTokens.revokedAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, hashToken(session.refreshToken)));
    expect(rows.map((row) => row.revokedAt)).toEqual([clock.now()]);
  });
});

describe('the event socket', () => {
  it('closes (tokenExpired) when the clock reaches the expiry of the token that opened it, not before', async () => {
    const { app, host } = t;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    const socket = await openSocket(eventsUrl(host, token), originOf(app));
    await answers(socket, 'ping', 'pong');
    clock.advance(msLeft(token) - 1);
    await answers(socket, 'ping', 'pong');
    clock.advance(1);
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.tokenExpired);
    await expect.poll(() => app.raceFeedSockets.count(member.id)).toBe(0);
  });

  it('lives on past the first expiry with a newer token sent with auth, until that one expires', async () => {
    const { app, host } = t;
    const member = await buildUser(app.database.db);
    const first = await tokenFor(app, member, { seconds: 10 });
    const socket = await openSocket(eventsUrl(host, first), originOf(app));
    const fresh = await tokenFor(app, member);
    socket.send({ type: 'auth', token: fresh });
    const ok = await socket.nextOfType('auth_ok');
    expect(Date.parse(String(ok.expiresAt))).toBe((decodeJwt(fresh).exp as number) * 1000);
    clock.advance(msLeft(first));
    await answers(socket, 'ping', 'pong');
    clock.advance(msLeft(fresh) - 1);
    await answers(socket, 'ping', 'pong');
    clock.advance(1);
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.tokenExpired);
  });
});

describe('the control socket', () => {
  const isNeutral = (m: Record<string, unknown>) =>
    m.type === 'stop' || (m.type === 'drive' && m.throttle === 0 && m.steer === 0);

  /** A car driven (throttle 0.6) over a control socket opened with the driver's token. */
  async function driving() {
    const { car, controller, taken } = await driveCar(t.app, t.host);
    await controller.nextOfType('car-status');
    controller.send({ type: 'drive', throttle: 0.6, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === 0.6);
    return { car, controller, taken };
  }

  it('closes (tokenExpired) at its token’s expiry, not before, and the car goes to neutral', async () => {
    const { car, controller, taken } = await driving();
    clock.advance(msLeft(taken.accessToken) - 1);
    await answers(controller, 'controller-ping', 'controller-pong');
    clock.advance(1);
    expect((await controller.closed).code).toBe(SOCKET_CLOSE_CODES.tokenExpired);
    await car.next(isNeutral);
    await car.close();
  });

  it('renewed with auth, keeps driving past the first expiry', async () => {
    const { car, controller, taken } = await driving();
    const fresh = await tokenFor(t.app, taken.driver, { seconds: 2 * TTL_SECONDS });
    controller.send({ type: 'auth', token: fresh });
    const ok = await controller.nextOfType('auth_ok');
    expect(Date.parse(String(ok.expiresAt))).toBe((decodeJwt(fresh).exp as number) * 1000);
    clock.advance(msLeft(taken.accessToken));
    controller.send({ type: 'drive', throttle: -0.4, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === -0.4);
    await controller.close();
    await car.close();
  });
});
