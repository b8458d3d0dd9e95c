/**
 * Abuse limits across instances (issue 15), on two real server processes sharing PostgreSQL and
 * Redis: wrong passwords on A slow the next login on B, a member's event sockets open on A
 * count against the cap on B, and their race commands on both against one budget.
 */
import { CONTROL_LIMITS, ERROR_KEYS } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTwoInstances, type TwoInstances } from '../test/instances.js';
import { apiCall, logIn } from '../test/process.js';
import { eventsUrl, openSocket, type TestSocket, upgradeRefusal } from '../test/sockets.js';

const hostOf = (base: string) => new URL(base).host;

async function login(base: string, body: { email: string; password: string }) {
  const response = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, recaptchaToken: '' }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.json(),
  };
}

describe('abuse limits shared by two instances', () => {
  let pair: TwoInstances;

  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 120_000);
  afterAll(async () => {
    await pair?.dispose();
  });

  async function signUp(name: string) {
    const credentials = { email: `${name}@example.com`, password: `${name}-password-long-enough` };
    await apiCall(pair.a.base, 'POST', '/signup', { ...credentials, username: name, recaptchaToken: '' });
    return credentials;
  }

  it('wrong passwords on A make the next login on B wait (429), even with the right password', async () => {
    const member = await signUp('throttled');
    const wrong = { email: member.email, password: 'not-the-password' };
    let wrongOnA = 0;
    // Until A itself answers 429 (after the free failures), at most 10.
    for (; wrongOnA < 10; wrongOnA += 1) {
      const answer = await login(pair.a.base, wrong);
      if (answer.status === 429) break;
      expect(answer.status).toBe(401);
    }
    expect(wrongOnA).toBeGreaterThanOrEqual(5);
    const onB = await login(pair.b.base, member);
    expect(onB.status).toBe(429);
    expect(onB.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyLoginAttempts });
  });

  it(`a member's event sockets on A count on B: the ${CONTROL_LIMITS.eventSocketsPerMember + 1}th is refused on either`, async () => {
    const member = await signUp('socketful');
    const token = await logIn(pair.a.base, member);
    const originA = { origin: new URL(pair.a.base).origin };
    const originB = { origin: new URL(pair.b.base).origin };
    const sockets: TestSocket[] = [];
    const onA = Math.ceil(CONTROL_LIMITS.eventSocketsPerMember / 2);
    for (let i = 0; i < onA; i += 1)
      sockets.push(await openSocket(eventsUrl(hostOf(pair.a.base), token), originA));
    for (let i = onA; i < CONTROL_LIMITS.eventSocketsPerMember; i += 1)
      sockets.push(await openSocket(eventsUrl(hostOf(pair.b.base), token), originB));
    const refusedOnB = await upgradeRefusal(eventsUrl(hostOf(pair.b.base), token), originB.origin);
    expect(refusedOnB.status).toBe(429);
    expect(refusedOnB.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyRequests });
    expect((await upgradeRefusal(eventsUrl(hostOf(pair.a.base), token), originA.origin)).status).toBe(429);
    // One closed on A frees a place on B.
    await sockets.shift()?.close();
    // Refused (429) until B hears of the close: asked again.
    const reopened = await vi.waitFor(() => openSocket(eventsUrl(hostOf(pair.b.base), token), originB), {
      timeout: 2_000,
      interval: 50,
    });
    sockets.push(reopened);
    await Promise.all(sockets.map((socket) => socket.close()));
  });

  it(`a member's race commands on A and on B share one budget of ${CONTROL_LIMITS.eventCommandsPerMember}`, async () => {
    const member = await signUp('commander');
    const token = await logIn(pair.a.base, member);
    const sockets = [
      await openSocket(eventsUrl(hostOf(pair.a.base), token), { origin: new URL(pair.a.base).origin }),
      await openSocket(eventsUrl(hostOf(pair.b.base), token), { origin: new URL(pair.b.base).origin }),
    ];
    const sent = CONTROL_LIMITS.eventCommandsPerMember * 2;
    for (let i = 0; i < sent; i += 1) sockets[i % 2]?.send({ type: 'ping_update', latency: i });
    const refused = () =>
      sockets.reduce(
        (n, socket) =>
          n +
          socket.messages.filter((m) => m.type === 'error' && m.errorKey === ERROR_KEYS.tooManyRequests)
            .length,
        0,
      );
    await expect.poll(refused).toBe(sent - CONTROL_LIMITS.eventCommandsPerMember);
    await Promise.all(sockets.map((socket) => socket.close()));
  });
});
