/**
 * Live video across two instances (issue 15) sharing one Janus, as docs/operations.md asks: the
 * car's agent is on A, so A makes its mountpoint; the driver's requests and /janus socket reach B.
 * B gives the driver the PIN A's mountpoint has, and Janus lets the driver watch through B's
 * proxy with it. When the session ends the PIN changes once (A re-keys the mountpoint, B reports
 * the new PIN), the old one opens nothing and the new one does. An instance with REDIS_URL that
 * runs its own Janus says once, at start, that other instances' members cannot see its cars.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Car } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import {
  type Instance,
  signUpMember,
  startTwoInstances,
  TEST_REDIS_URL,
  type TwoInstances,
} from '../../test/instances.js';
import { addSimCar, apiCall, killProcess, lineAppears, takeCarWithCode } from '../../test/process.js';
import { quietLogger } from '../../test/quiet-logger.js';
import { openSocket, type TestSocket } from '../../test/sockets.js';
import { janusAnswer } from '../../test/video.js';
import { JanusClient } from './janus-client.js';
import { JanusSupervisor } from './janus-process.js';
import { mountpointSecret } from './mountpoints.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('live video with two instances and one shared Janus', () => {
  let janusDir: string;
  let janus: JanusSupervisor;
  let janusAdmin: JanusClient;
  let pair: TwoInstances;
  const children: ChildProcess[] = [];
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    janusDir = await mkdtemp(join(tmpdir(), 'telerace-shared-janus-'));
    janus = new JanusSupervisor({ dataDir: janusDir, log: quietLogger() });
    await janus.start();
    janusAdmin = new JanusClient(janus.httpUrl, janus.adminKey);
    pair = await startTwoInstances({
      env: {
        VIDEO: 'auto',
        JANUS_URL: janus.wsUrl,
        JANUS_API_URL: janus.httpUrl,
        JANUS_ADMIN_KEY: janus.adminKey ?? '',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    for (const child of children) await killProcess(child);
    await pair?.dispose();
    await janus?.stop();
    if (janusDir) await rm(janusDir, { recursive: true, force: true });
  });

  const status = (instance: Instance, carId: number, token: string) =>
    apiCall<Car>(instance.base, 'GET', `/cars/${carId}/status`, undefined, token);

  /** Asks Janus to watch through the instance's /janus proxy: 0 when it offers the stream, else its error. */
  async function watchThrough(instance: Instance, token: string, streamId: number, pin: string) {
    const janusSocket = await openSocket(
      `ws://127.0.0.1:${instance.port}/janus?token=${encodeURIComponent(token)}`,
      { origin: instance.base },
      'janus-protocol',
    );
    sockets.push(janusSocket);
    const create = randomUUID();
    janusSocket.send({ janus: 'create', transaction: create });
    const session = ((await janusAnswer(janusSocket, create)).data as { id: number }).id;
    const attach = randomUUID();
    janusSocket.send({
      janus: 'attach',
      plugin: 'janus.plugin.streaming',
      session_id: session,
      transaction: attach,
    });
    const handle = ((await janusAnswer(janusSocket, attach)).data as { id: number }).id;
    const watch = randomUUID();
    janusSocket.send({
      janus: 'message',
      session_id: session,
      handle_id: handle,
      transaction: watch,
      body: { request: 'watch', id: streamId, pin },
    });
    const reply = await janusAnswer(janusSocket, watch);
    await janusSocket.close();
    const data = (reply.plugindata as { data?: { error_code?: number } } | undefined)?.data;
    if (typeof data?.error_code === 'number') return data.error_code;
    expect(reply).toMatchObject({ janus: 'event', jsep: { type: 'offer' } });
    return 0;
  }

  it('gives the driver on B the PIN of the mountpoint A made, changed once when the session ends', async () => {
    // The car's agent is on A: A makes the mountpoint on the shared Janus.
    const { carId, agent } = await addSimCar(pair.a.base, pair.adminToken, 'Video car on A');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);
    const driver = (await signUpMember(pair.b, 'video_driver_on_b')).token;
    await takeCarWithCode(pair.b.base, carId, pair.adminToken, driver);

    const onB = await status(pair.b, carId, driver);
    const streamId = onB.stream_id;
    const secret = mountpointSecret(janus.adminKey, streamId);
    await expect
      .poll(async () => (await janusAdmin.listMountpoints()).map((m) => m.id), { timeout: 10_000 })
      .toContain(streamId);
    const pin = onB.video?.pin;
    expect(onB.video?.available).toBe(true);
    expect(pin).toEqual(expect.any(String));
    expect((await janusAdmin.info(streamId, secret)).pin).toBe(pin);
    expect((await status(pair.a, carId, driver)).video?.pin).toBe(pin);
    expect((await status(pair.b, carId, pair.adminToken)).video?.pin).toBe(pin);
    // The driver watches through B's proxy with the PIN B gave.
    expect(await watchThrough(pair.b, driver, streamId, pin ?? '')).toBe(0);

    // The admin kicks the driver from B: both instances hear the session's end.
    await apiCall(pair.b.base, 'POST', `/admin/cars/${carId}/kick`, undefined, pair.adminToken);
    const pinOnB = async () => (await status(pair.b, carId, pair.adminToken)).video?.pin;
    await expect.poll(pinOnB, { timeout: 10_000 }).not.toBe(pin);
    const newPin = await pinOnB();
    await expect
      .poll(async () => (await janusAdmin.info(streamId, secret)).pin, { timeout: 10_000 })
      .toBe(newPin);
    // Changed once: a second change (the other instance making its own) would show within this.
    const seen = new Set<string | null | undefined>();
    for (let i = 0; i < 10; i += 1) {
      seen.add(await pinOnB());
      seen.add((await status(pair.a, carId, pair.adminToken)).video?.pin);
      await sleep(200);
    }
    expect([...seen]).toEqual([newPin]);
    expect((await janusAdmin.info(streamId, secret)).pin).toBe(newPin);
    expect(await watchThrough(pair.b, pair.adminToken, streamId, pin ?? '')).toBe(457);
    expect(await watchThrough(pair.b, pair.adminToken, streamId, newPin ?? '')).toBe(0);

    // Neither instance ever writes a PIN in its logs.
    for (const instance of [pair.a, pair.b]) {
      const { stdout, stderr } = instance.server.output();
      expect(stdout + stderr).not.toContain(pin);
      expect(stdout + stderr).not.toContain(newPin);
    }
  }, 90_000);

  it('removes the mountpoint of a car deleted after it left the instance that made it', async () => {
    // B makes the car's mountpoint; the agent leaves, so B no longer answers for it.
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Video car that leaves');
    await lineAppears(agent, /welcomed as car/);
    const { stream_id: streamId } = await status(pair.a, carId, pair.adminToken);
    const mountpointIds = async () => (await janusAdmin.listMountpoints()).map((m) => m.id);
    await expect.poll(mountpointIds, { timeout: 10_000 }).toContain(streamId);
    await killProcess(agent);
    await expect
      .poll(async () => (await status(pair.b, carId, pair.adminToken)).status, { timeout: 10_000 })
      .toBe('offline');

    await apiCall(pair.a.base, 'DELETE', `/admin/cars/${carId}`, undefined, pair.adminToken);
    await expect.poll(mountpointIds, { timeout: 10_000 }).not.toContain(streamId);
  }, 60_000);
});

describe('an instance with REDIS_URL and its own Janus', () => {
  it('warns once at start that members on other instances cannot see its cars', async () => {
    const testApp = await startTestApp({
      VIDEO: 'auto',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_NAMESPACE: `telerace_test_${randomUUID().replaceAll('-', '')}`,
    });
    try {
      await testApp.app.videoStarted();
      expect(testApp.app.video.janus.supervisor).not.toBeNull();
      const warnings = testApp.logLines().filter((line) => String(line.msg).includes('without JANUS_URL'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.level).toBe(40);
      expect(String(warnings[0]?.msg)).toContain('one shared Janus');
    } finally {
      await testApp.close();
    }
  }, 60_000);
});
