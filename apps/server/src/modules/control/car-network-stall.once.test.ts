/**
 * A car's network stalls (docs/reliability.md, fault 6): the car agent's TCP connection to the
 * server goes through a proxy that stops forwarding without closing anything, as a Wi-Fi link or
 * a 4G cell does. With real processes: the car, driven at full throttle, must fall to neutral on
 * its own deadman (nothing arrives: 500 ms, asserted within 600 ms), the server must mark it
 * offline within its keepalive (silent 5 s, checked every second: within 7 s), and the car must
 * be back online by itself once the link passes packets again.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../test/app.js';
import {
  apiCall,
  holdFullThrottle,
  killProcess,
  lineAppears,
  startServerProcess,
  startSimAgent,
} from '../../test/process.js';
import { type StallProxy, startStallProxy } from '../../test/stall-proxy.js';

const ADMIN = { email: 'stall-admin@telerace.test', password: 'stall-admin-Passw0rd!' };
const BOUNDS_MS = { neutral: 600, offline: 7_000, backOnline: 10_000 };

describe('a car whose network stalls', () => {
  let environment: TestEnvironment;
  let proxy: StallProxy | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment();
  });
  afterAll(async () => {
    for (const child of children) await killProcess(child);
    await proxy?.close();
    await environment?.dispose();
  });

  it('is neutral on its own deadman, offline on the server within its keepalive, and back by itself', async () => {
    const { server, base, port, adminToken } = await startServerProcess(environment.env, ADMIN);
    children.push(server);
    proxy = await startStallProxy(port);
    const { car, secret } = await apiCall<{ car: { id: number }; secret: string }>(
      base,
      'POST',
      '/admin/cars',
      { name: 'Stalled car', image_url: null },
      adminToken,
    );
    const agent = startSimAgent(`http://127.0.0.1:${proxy.port}`, car.id, secret);
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);
    const statusOfCar = async () => {
      const cars = await apiCall<{ id: number; status: string }[]>(
        base,
        'GET',
        '/cars',
        undefined,
        adminToken,
      );
      return cars.find((listed) => listed.id === car.id)?.status;
    };
    const timeUntilStatus = async (status: string, from: number, boundMs: number) => {
      await expect.poll(statusOfCar, { timeout: boundMs + 2_000, interval: 100 }).toBe(status);
      return performance.now() - from;
    };

    // The driver (on a good link) holds full throttle until the car moves.
    const driver = await holdFullThrottle(base, port, car.id, adminToken);

    const neutral = lineAppears(agent, /neutral \(/);
    const stalledAt = performance.now();
    proxy.stall();
    const { line, at } = await neutral;
    const offlineAfter = await timeUntilStatus('offline', stalledAt, BOUNDS_MS.offline);

    const resumedAt = performance.now();
    proxy.resume();
    const onlineAfter = await timeUntilStatus('online', resumedAt, BOUNDS_MS.backOnline);
    driver.stop();
    driver.socket.terminate();

    console.info(
      `car link stalled → neutral ${(at - stalledAt).toFixed(0)} ms (${line.trim()}), ` +
        `offline on the server ${offlineAfter.toFixed(0)} ms; link back → online ${onlineAfter.toFixed(0)} ms`,
    );
    expect(line).toMatch(/deadman/);
    expect(at - stalledAt).toBeLessThanOrEqual(BOUNDS_MS.neutral);
    expect(offlineAfter).toBeLessThanOrEqual(BOUNDS_MS.offline);
    expect(onlineAfter).toBeLessThanOrEqual(BOUNDS_MS.backOnline);
  }, 90_000);
});
