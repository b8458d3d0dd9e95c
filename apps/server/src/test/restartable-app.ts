/**
 * Test apps that stop and start again on the same database (PGlite on disk when asked, or the
 * same PostgreSQL database) with one ManualClock across them: what a restart keeps. Set up per
 * test by `useRestartableApps()`; `boot` starts an app, `stop` closes one the way a crash leaves
 * things (nothing is written on the way out; its sockets simply drop).
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { buildTestApp, createTestEnvironment, type TestApp, type TestEnvironment } from './app.js';
import { ManualClock } from './clock.js';
import type { TestSocket } from './sockets.js';

export interface RestartableApps {
  clock: ManualClock;
  /** Sockets to drop when the app they talk to stops (and after each test). */
  sockets: TestSocket[];
  boot(persistentDatabase?: boolean): Promise<FastifyInstance>;
  stop(app: FastifyInstance): Promise<void>;
}

export function useRestartableApps(): RestartableApps {
  let environment: TestEnvironment;
  const running: TestApp[] = [];
  const apps: RestartableApps = {
    clock: new ManualClock(),
    sockets: [],
    async boot(persistentDatabase = false) {
      const testApp = await buildTestApp(environment, { clock: apps.clock, persistentDatabase });
      running.push(testApp);
      return testApp.app;
    },
    async stop(app) {
      running.splice(
        running.findIndex((testApp) => testApp.app === app),
        1,
      );
      for (const socket of apps.sockets.splice(0)) socket.ws.terminate();
      await app.close();
    },
  };
  beforeEach(async () => {
    environment = await createTestEnvironment();
    apps.clock = new ManualClock();
  });
  afterEach(async () => {
    for (const socket of apps.sockets.splice(0)) socket.ws.terminate();
    for (const testApp of running.splice(0)) await testApp.app.close();
    await environment.dispose();
  });
  return apps;
}
