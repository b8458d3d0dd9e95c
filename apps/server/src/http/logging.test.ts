import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../test/app.js';
import { REDACTED, redactUrl, SLOW_REQUEST_MS } from './logging.js';

/** A route that logs carelessly, as future code might: the logger must still hide credentials. */
const carelessRoutes: FastifyPluginAsync = async (app) => {
  app.post('/test/careless', async (request) => {
    request.log.info({ headers: request.headers, body: request.body }, 'careless debug line');
    request.log.info({ req: request }, 'careless request line');
    return { ok: true };
  });
};

describe('redactUrl', () => {
  it.each([
    ['/api/race-ws?token=abc.def', `/api/race-ws?token=${REDACTED}`],
    [
      '/rcsocket?type=controller&car=3&control_token=C1&token=T1',
      `/rcsocket?type=controller&car=3&control_token=${REDACTED}&token=${REDACTED}`,
    ],
    ['/auth/callback?destination=/&TOKEN=x#frag', `/auth/callback?destination=/&TOKEN=${REDACTED}#frag`],
    ['/api/auth/twitch/callback?code=abc&state=s', `/api/auth/twitch/callback?code=${REDACTED}&state=s`],
    ['/api/health', '/api/health'],
    ['/api/cars?mytoken=keep', '/api/cars?mytoken=keep'],
    // Names are compared decoded (the query parser decodes them too), in any case.
    ['/api/race-ws?%74oken=abc', `/api/race-ws?%74oken=${REDACTED}`],
    ['/api/race-ws?%2574oken=abc', `/api/race-ws?%2574oken=${REDACTED}`],
    ['/x?Control%5FToken=abc&car=1', `/x?Control%5FToken=${REDACTED}&car=1`],
    ['/x?jwt=abc', `/x?jwt=${REDACTED}`],
    ['/x?id_token=abc&access%20token=keep', `/x?id_token=${REDACTED}&access%20token=keep`],
    // Any value that looks like a JWT, whatever its name.
    [`/x?q=${'eyJhbGciOiJIUzI1NiJ9'}.${'eyJzdWIiOiIxIn0'}.${'c2lnbmF0dXJl'}&a=1`, `/x?q=${REDACTED}&a=1`],
    ['/x?q=eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', `/x?q=${REDACTED}`],
    ['/x?version=1.2.3', '/x?version=1.2.3'],
    // Repeated and valueless parameters.
    ['/x?token=a&token=b&flag', `/x?token=${REDACTED}&token=${REDACTED}&flag`],
    // The reset link's token lives in the path of the web page.
    ['/reset-password/AbC_123-xyz', `/reset-password/${REDACTED}`],
    ['/reset-password/AbC_123?x=1', `/reset-password/${REDACTED}?x=1`],
    ['/api/reset-password', '/api/reset-password'],
    // A malformed escape does not throw.
    ['/x?%E0%A4%A=1&token=2', `/x?%E0%A4%A=1&token=${REDACTED}`],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('request logs', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({}, { apiPlugins: [carelessRoutes] });
  });
  afterAll(() => testApp.close());

  it('never contain tokens from the query string, headers or body', async () => {
    await testApp.app.inject({
      url: '/rcsocket?type=controller&car=3&control_token=CONTROL-SECRET-1&token=ACCESS-SECRET-2',
      headers: { authorization: 'Bearer HEADER-SECRET-3', cookie: 'refresh=COOKIE-SECRET-4' },
    });
    await testApp.app.inject({
      method: 'POST',
      url: '/api/test/careless?token=ACCESS-SECRET-5',
      headers: { authorization: 'Bearer HEADER-SECRET-6', cookie: 'refresh=COOKIE-SECRET-7' },
      payload: { email: 'a@example.com', password: 'PASSWORD-SECRET-8', controlToken: 'CONTROL-SECRET-9' },
    });

    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiJ9.SECRET-10-signature';
    await testApp.app.inject({ url: `/api/race-ws?%74oken=${jwt}` });
    await testApp.app.inject({ url: '/api/race-ws?jwt=SECRET-11' });
    await testApp.app.inject({ url: `/api/health?anything=${jwt.replace('10', '12')}` });
    await testApp.app.inject({ url: '/reset-password/SECRET-13-reset-token' });

    const log = testApp.logText();
    expect(log).not.toMatch(/SECRET-\d/);
    expect(log).not.toContain('eyJzdWIiOiI0MiJ9');
    // The lines are there, only the values are hidden.
    const lines = testApp.logLines();
    const urls = lines.map((line) => (line.req as { url?: string } | undefined)?.url).filter(Boolean);
    expect(urls).toContain(`/rcsocket?type=controller&car=3&control_token=${REDACTED}&token=${REDACTED}`);
    expect(urls).toContain(`/api/test/careless?token=${REDACTED}`);
    const careless = lines.find((line) => line.msg === 'careless debug line') as {
      headers: Record<string, string>;
      body: Record<string, string>;
    };
    expect(careless.headers.authorization).toBe(REDACTED);
    expect(careless.headers.cookie).toBe(REDACTED);
    expect(careless.body.password).toBe(REDACTED);
    expect(careless.body.email).toBe('a@example.com');
  });
});

/** A quick answer and one slower than the slow-request threshold. */
const timedRoutes: FastifyPluginAsync = async (app) => {
  app.get('/test/quick', async () => ({ ok: true }));
  app.get('/test/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_REQUEST_MS + 50));
    return { ok: true };
  });
};

describe('what is logged per request (info level)', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({}, { apiPlugins: [timedRoutes] });
  });
  afterAll(() => testApp.close());

  const linesAbout = (url: string) =>
    testApp.logLines().filter((line) => (line.req as { url?: string } | undefined)?.url === url);

  it('nothing for a quick, successful request', async () => {
    expect((await testApp.app.inject('/api/test/quick')).statusCode).toBe(200);
    expect(linesAbout('/api/test/quick')).toEqual([]);
  });

  it('a slow request, with its URL, status and time', async () => {
    expect((await testApp.app.inject('/api/test/slow?token=SECRET-1')).statusCode).toBe(200);
    const [line] = linesAbout(`/api/test/slow?token=${REDACTED}`);
    expect(line).toMatchObject({ msg: 'slow request', statusCode: 200 });
    expect(line?.responseTime).toBeGreaterThanOrEqual(SLOW_REQUEST_MS);
    // The request's own logger (made when it first logs) names the request.
    expect(line?.reqId).toEqual(expect.stringMatching(/^req-/));
  });

  it('a rejected request, with its URL', async () => {
    expect((await testApp.app.inject('/api/cars')).statusCode).toBe(401);
    expect(linesAbout('/api/cars')).toMatchObject([
      { msg: 'request rejected', status: 401, reqId: expect.stringMatching(/^req-/) },
    ]);
  });
});
