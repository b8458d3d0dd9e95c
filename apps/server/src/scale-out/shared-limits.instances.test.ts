/**
 * Shared limits (issue 15): two apps on one PostgreSQL and one Redis namespace share the /api
 * rate limit — a client that spent its budget on one is refused by the other — while an app
 * without REDIS_URL keeps its own in-memory count.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestEnvironment, type TestApp, type TestEnvironment } from '../test/app.js';
import { TEST_REDIS_URL } from '../test/instances.js';

describe('the /api rate limit across instances', () => {
  let environment: TestEnvironment;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment({
      REDIS_URL: TEST_REDIS_URL,
      REDIS_NAMESPACE: `telerace_test_${randomBytes(6).toString('hex')}`,
    });
    for (const _ of [0, 1])
      apps.push(await buildTestApp(environment, { rateLimit: { max: 3, timeWindowMs: 60_000 } }));
  });
  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await environment?.dispose();
  });

  it('counts a client’s requests on every instance', async () => {
    const [a, b] = apps.map(({ app }) => app);
    const health = (app: typeof a) => app?.inject({ method: 'GET', url: '/api/health' });
    for (const _ of [1, 2, 3]) expect((await health(a))?.statusCode).toBe(200);
    expect((await health(b))?.statusCode).toBe(429);
    expect((await health(a))?.statusCode).toBe(429);
  });
});
