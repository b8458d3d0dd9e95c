/**
 * A car's network stalls (docs/reliability.md, fault 6): the car agent's TCP connection to the
 * server goes through a proxy that stops forwarding without closing anything, as a Wi-Fi link or
 * a 4G cell does. With real processes.
 *
 * Without its drive channel (the socket alone, `--drive-channel off`): the car, driven at full
 * throttle, must fall to neutral on its own deadman (nothing arrives: 500 ms, asserted within
 * 600 ms), the server must mark it offline within its keepalive (silent 5 s, checked every second:
 * within 7 s), and the car must be back online by itself once the link passes packets again.
 *
 * With its drive channel (issue 42), whose UDP does not go through the stalled TCP: the drives keep
 * coming, so the deadman must not trip while the driver drives, and the driver leaving must still
 * stop the car within 250 ms (the server's `stop` takes the channel).
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
const BOUNDS_MS = { neutral: 600, offline: 7_000, backOnline: 10_000, driverGone: 250 };
/** Under the server's 5 s car keepalive: the socket, stalled, is dropped after that. */
const STALL_WHILE_DRIVING_MS = 3_000;

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
    const agent = startSimAgent(`http://127.0.0.1:${proxy.port}`, car.id, secret, ['--drive-channel', 'off']);
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
    // The next test's server takes the same data folder.
    await killProcess(agent);
    await killProcess(server);
  }, 90_000);

  it('with its drive channel, keeps driving through a stalled TCP link and stops at once when the driver leaves', async () => {
    const { server, base, port, adminToken } = await startServerProcess(environment.env, ADMIN);
    children.push(server);
    const channelProxy = await startStallProxy(port);
    const { car, secret } = await apiCall<{ car: { id: number }; secret: string }>(
      base,
      'POST',
      '/admin/cars',
      { name: 'Channel car', image_url: null },
      adminToken,
    );
    const agent = startSimAgent(`http://127.0.0.1:${channelProxy.port}`, car.id, secret);
    children.push(agent);
    const opened = lineAppears(agent, /drive channel open/);
    await lineAppears(agent, /welcomed as car/);
    await opened;
    const driver = await holdFullThrottle(base, port, car.id, adminToken);

    let neutralLine: string | null = null;
    void lineAppears(agent, /neutral \(/).then(({ line }) => {
      neutralLine ??= line;
    });
    channelProxy.stall();
    await new Promise((resolve) => setTimeout(resolve, STALL_WHILE_DRIVING_MS));
    // Nothing came over TCP for 3 s; the drives came by the channel, and the car drove on.
    expect(neutralLine).toBeNull();

    const stopped = lineAppears(agent, /neutral \(/);
    const leftAt = performance.now();
    driver.stop();
    driver.socket.terminate();
    const { line, at } = await stopped;
    console.info(
      `drive channel: TCP stalled ${STALL_WHILE_DRIVING_MS} ms while driving → no deadman; driver gone → ${line.trim()} after ${(at - leftAt).toFixed(0)} ms`,
    );
    expect(line).toMatch(/stop from the server/);
    expect(at - leftAt).toBeLessThanOrEqual(BOUNDS_MS.driverGone);
    channelProxy.resume();
    await channelProxy.close();
  }, 90_000);
});
