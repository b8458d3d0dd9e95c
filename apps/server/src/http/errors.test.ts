import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../domain-error.js';
import { startTestApp } from '../test/app.js';

/** Routes that exist only in this test, to drive the error handler through real requests. */
const probeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/test/sign-up',
    {
      schema: { body: z.object({ email: z.email(), profile: z.object({ age: z.number().int().min(13) }) }) },
    },
    async (request) => ({ email: request.body.email }),
  );
  app.get(
    '/test/page',
    { schema: { querystring: z.object({ limit: z.coerce.number().int().max(100) }) } },
    async (request) => ({ limit: request.query.limit }),
  );
  app.get('/test/domain/:kind', async (request) => {
    const { kind } = request.params as { kind: DomainErrorKind };
    throw new DomainError(kind, `refused: ${kind}`, ERROR_KEYS.forbidden, {
      ...(kind === 'rate_limited' ? { retryAfterSeconds: 42 } : {}),
      details: { why: 'internal detail' },
    });
  });
  app.get('/test/crash', async () => {
    throw new Error('connection to db-internal.example:5432 refused: secret detail');
  });
  app.get('/test/crash-with-status', async () => {
    throw Object.assign(new Error('upstream said: secret detail'), { statusCode: 502 });
  });
};

describe('error responses', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({}, { apiPlugins: [probeRoutes] });
  });
  afterAll(() => testApp.close());

  it.each(['GET', 'POST', 'DELETE', 'PATCH'] as const)(
    'answers %s on an unknown /api path with JSON 404',
    async (method) => {
      const response = await testApp.app.inject({ method, url: '/api/x' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
    },
  );

  it('answers JSON 404 for deep unknown API paths and /api itself', async () => {
    for (const url of ['/api/health/extra', '/api/a/b/c?x=1', '/api']) {
      const response = await testApp.app.inject(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
    }
  });

  it.each([
    ['invalid', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['rate_limited', 429],
    ['unavailable', 503],
  ] as const)(
    'answers a service refusal of kind %s with %i and its message and key',
    async (kind, status) => {
      const response = await testApp.app.inject(`/api/test/domain/${kind}`);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ error: `refused: ${kind}`, errorKey: ERROR_KEYS.forbidden });
      expect(response.headers['retry-after']).toBe(kind === 'rate_limited' ? '42' : undefined);
      expect(response.body).not.toContain('internal detail');
    },
  );

  it('answers JSON 404 to a non-GET request outside the API', async () => {
    const response = await testApp.app.inject({ method: 'POST', url: '/some/page' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
  });

  it('answers 400 naming the invalid body field', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/api/test/sign-up',
      payload: { email: 'not-an-email', profile: { age: 20 } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'body.email: Invalid email address',
      errorKey: 'errors.validation',
    });
  });

  it('names nested fields and every invalid field', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/api/test/sign-up',
      payload: { email: 'a@b', profile: { age: 12 } },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json() as { error: string };
    expect(error).toContain('body.email: ');
    expect(error).toContain('body.profile.age: Too small');
  });

  it('names invalid query parameters', async () => {
    const response = await testApp.app.inject('/api/test/page?limit=500');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errorKey: 'errors.validation' });
    expect((response.json() as { error: string }).error).toMatch(/^query\.limit: /);
    expect((await testApp.app.inject('/api/test/page?limit=50')).json()).toEqual({ limit: 50 });
  });

  it('answers 400 in the same shape to a body that is not JSON', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/api/test/sign-up',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json() as object).sort()).toEqual(['error', 'errorKey']);
    expect(response.json()).toMatchObject({ errorKey: 'errors.validation' });
  });

  it('never leaks a stack or an internal message in a 5xx', async () => {
    for (const [url, status] of [
      ['/api/test/crash', 500],
      ['/api/test/crash-with-status', 502],
    ] as const) {
      const response = await testApp.app.inject(url);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ error: 'Internal server error', errorKey: 'errors.internal' });
      expect(response.body).not.toMatch(/secret detail|stack|\bat \//);
    }
    // …but the log keeps the details for whoever runs the server.
    expect(testApp.logText()).toContain('secret detail');
  });
});

describe('rate limiting', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: '1' }, { rateLimit: { max: 3, timeWindowMs: 60_000 } });
  });
  afterAll(() => testApp.close());

  it('answers 429 in the common error shape once an IP exceeds the limit on /api', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await testApp.app.inject('/api/health')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const response = await testApp.app.inject('/api/public-config');
    expect(response.statusCode).toBe(429);
    expect(response.json()).toEqual({
      error: 'Too many requests, retry in 1 minute',
      errorKey: 'errors.tooManyRequests',
    });
    // Seconds until the window frees a request.
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Unknown API paths count too: probing is no way around the limit.
    expect((await testApp.app.inject('/api/x')).statusCode).toBe(429);
  });

  it('does not limit the web app', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await testApp.app.inject('/some/page')).statusCode).toBe(503);
    }
  });

  it('counts each client separately, by its forwarded address behind a trusted proxy', async () => {
    const asClient = (ip: string) =>
      testApp.app.inject({ url: '/api/health', headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) expect((await asClient('203.0.113.7')).statusCode).toBe(200);
    expect((await asClient('203.0.113.7')).statusCode).toBe(429);
    expect((await asClient('203.0.113.8')).statusCode).toBe(200);
  });
});
