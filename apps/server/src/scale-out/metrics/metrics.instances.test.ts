/**
 * GET /metrics on two instances (one PostgreSQL, one Redis namespace): drives that cross from a
 * driver on one instance to a car on the other are counted on both sides, and `telerace_leader`
 * follows the leadership. PostgreSQL only (`*.instances.test.ts`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestEnvironment, type TestApp, type TestEnvironment } from '../../test/app.js';
import { TEST_REDIS_URL } from '../../test/instances.js';
import { parseExposition, sampleValue } from '../../test/prometheus.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  listen,
  openSocket,
  originOf,
  takeCar,
} from '../../test/sockets.js';

describe('GET /metrics on two instances', () => {
  let environment: TestEnvironment;
  const apps: TestApp[] = [];
  const hosts: string[] = [];
  beforeAll(async () => {
    environment = await createTestEnvironment({
      METRICS_PORT: '0',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_NAMESPACE: `telerace_test_${randomBytes(6).toString('hex')}`,
    });
    // One after the other: the first one up takes the lock.
    for (const _ of [0, 1]) {
      const testApp = await buildTestApp(environment);
      apps.push(testApp);
      hosts.push(await listen(testApp.app));
    }
  });
  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await environment?.dispose();
  });

  const scrapeOf = async ({ app }: TestApp) =>
    parseExposition(await (await fetch(`http://127.0.0.1:${app.metricsServer?.port}/metrics`)).text())
      .samples;

  it('counts a drive from a driver on one instance to a car on the other on both sides', async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const [hostA, hostB] = hosts as [string, string];
    const driving = await createCar(a.app, 'Car on B');
    const car = await connectCar(hostB, driving.carId, driving.secret);
    const taken = await takeCar(a.app, driving);
    const controller = await openSocket(
      controllerUrl(hostA, driving.carId, taken.accessToken, taken.controlToken),
      originOf(a.app),
    );
    try {
      // A hears of the car on B (car.online over Redis) before its first drive crosses.
      await controller.next((message) => message.type === 'car-status' && message.online === true);
      controller.send({ type: 'drive', throttle: 0.5, steer: 0 });
      await car.next((message) => message.type === 'drive' && message.throttle === 0.5);
      const remote = async (testApp: TestApp, direction: string) =>
        sampleValue(await scrapeOf(testApp), 'telerace_relay_remote_drives_total', { direction });
      expect(await remote(a, 'sent')).toBe(1);
      expect(await remote(a, 'forwarded')).toBe(0);
      // The driver's instance repeats the drive (heartbeat): forwarded once or more.
      expect(await remote(b, 'forwarded')).toBeGreaterThanOrEqual(1);
      expect(await remote(b, 'sent')).toBe(0);
    } finally {
      await Promise.all([controller.close(), car.close()]);
    }
  });

  it('shows telerace_leader 1 on the leader and 0 on the other, and moves with the leadership', async () => {
    const leaderValue = async (testApp: TestApp) => sampleValue(await scrapeOf(testApp), 'telerace_leader');
    const [first, second] = apps as [TestApp, TestApp];
    expect(await leaderValue(first)).toBe(1);
    expect(await leaderValue(second)).toBe(0);
    // The leader gives the lock up: the other takes it at its next try (every second).
    await first.app.leadership.stop();
    expect(await leaderValue(first)).toBe(0);
    await expect.poll(() => leaderValue(second), { timeout: 5_000 }).toBe(1);
  });
});
