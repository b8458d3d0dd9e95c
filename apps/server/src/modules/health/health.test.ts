import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../paths.js';
import { buildTestApp, createTestEnvironment, startTestApp, TEST_DB_KIND } from '../../test/app.js';
import { eventsUrl, upgradeRefusal } from '../../test/sockets.js';

describe('health and readiness', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('tells the public only that the process answers (issue 39)', async () => {
    const response = await testApp.app.inject('/api/health');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('reports the database kind, the server version and the database to the operators', async () => {
    expect(await testApp.app.health.details()).toEqual({
      status: 'ok',
      db: TEST_DB_KIND,
      version: SERVER_VERSION,
      database: { status: 'reachable' },
    });
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('describes the API in OpenAPI, generated from the shared schemas', async () => {
    const response = await testApp.app.inject('/api/openapi.json');
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    const health = document.paths['/api/health'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(health.properties)).toEqual(['status']);
  });

  it('is ready once migrations are applied', async () => {
    const response = await testApp.app.inject('/api/ready');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ready: true });
  });
});

describe('readiness while not ready', () => {
  it('answers 503 while the migrations run, and 200 once they are done', async () => {
    const environment = await createTestEnvironment();
    let releaseMigrations = () => {};
    const gate = new Promise<void>((resolve) => {
      releaseMigrations = resolve;
    });
    const { app } = await buildTestApp(environment, { migrationGate: gate, waitForMigrations: false });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const base = `http://127.0.0.1:${port}`;

      const during = await fetch(`${base}/api/ready`);
      expect(during.status).toBe(503);
      expect(await during.json()).toEqual({ error: 'Not ready', errorKey: 'errors.notReady' });
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
      // Nothing else answers yet: nginx tries another instance, a client again in a second.
      const api = await fetch(`${base}/api/public-config`);
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('1');
      expect(await api.json()).toEqual({ error: 'Not ready', errorKey: 'errors.notReady' });
      const host = `127.0.0.1:${port}`;
      for (const socket of [`ws://${host}/rcsocket?type=car&car=1`, eventsUrl(host, 'token')])
        expect((await upgradeRefusal(socket, base)).status).toBe(503);

      releaseMigrations();
      await app.migrated();
      const after = await fetch(`${base}/api/ready`);
      expect(after.status).toBe(200);
      expect(await after.json()).toEqual({ ready: true });
      expect((await fetch(`${base}/api/public-config`)).status).toBe(200);
    } finally {
      await app.close();
      await environment.dispose();
    }
  });

  it('answers 503 when the database no longer answers', async () => {
    const testApp = await startTestApp();
    try {
      expect((await testApp.app.inject('/api/ready')).statusCode).toBe(200);
      await testApp.app.database.close();
      const response = await testApp.app.inject('/api/ready');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: 'Not ready', errorKey: 'errors.notReady' });
      expect((await testApp.app.inject('/api/health')).statusCode).toBe(200);
      expect((await testApp.app.health.details()).database).toEqual({
        status: 'unreachable',
        reason: 'query failed',
      });
      expect(testApp.logText()).toContain('database unreachable');
    } finally {
      await testApp.close();
    }
  });
});
