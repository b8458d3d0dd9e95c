/**
 * Live video against the real Janus the server runs itself (VIDEO=auto): one mountpoint per
 * connected car with its target sent to the car, re-created after Janus is killed, destroyed with
 * the car, watchable only with the PIN its driver and admins get; and the `/janus` proxy, which
 * only members reach and which forwards only what watching needs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Car } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type StartedTestApp, startTestApp } from '../../test/app.js';
import { authHeader, buildUser, tokenFor } from '../../test/factories.js';
import { quietLogger } from '../../test/quiet-logger.js';
import {
  connectCar,
  createCar,
  type Driving,
  listen,
  refusedStatus,
  type TestSocket,
  takeCar,
} from '../../test/sockets.js';
import { janusAnswer, openJanusSocket, startOwnJanusTestApp } from '../../test/video.js';
import { JanusClient } from './janus-client.js';
import { JanusSupervisor } from './janus-process.js';
import { mountpointSecret } from './mountpoints.js';

/** Watches a mountpoint over REST: the plugin's error code, or 0 when Janus offers the stream. */
async function watchResult(client: JanusClient, id: number, pin: string | null): Promise<number> {
  const { session, handle, close } = await client.openHandle();
  try {
    await client.message(session, handle, { request: 'watch', id, ...(pin === null ? {} : { pin }) });
    for (;;) {
      const event = await client.nextEvent(session);
      if (event.janus !== 'event') continue;
      const data = event.plugindata?.data ?? {};
      if (typeof data.error_code === 'number') return data.error_code;
      if ((event as { jsep?: unknown }).jsep) return 0;
    }
  } finally {
    await close();
  }
}

async function carStatus(
  testApp: StartedTestApp,
  carId: number,
  headers: Record<string, string>,
): Promise<Car> {
  const response = await testApp.app.inject({ method: 'GET', url: `/api/cars/${carId}/status`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Car;
}

describe('live video with the server’s own Janus', () => {
  let testApp: StartedTestApp;
  let host: string;
  let admin: JanusClient;

  beforeAll(async () => {
    ({ testApp, host, janusAdmin: admin } = await startOwnJanusTestApp());
  }, 60_000);
  afterAll(() => testApp.close());

  async function onlineCar(name: string): Promise<{ driving: Driving; car: TestSocket; streamId: number }> {
    const driving = await createCar(testApp.app, name);
    const car = await connectCar(host, driving.carId, driving.secret);
    const status = await carStatus(testApp, driving.carId, driving.adminHeaders);
    return { driving, car, streamId: status.stream_id };
  }

  it('creates the mountpoint when the car connects, and has the car stream only while it is driven', async () => {
    const { driving, car, streamId } = await onlineCar('Video 1');
    await expect
      .poll(() => testApp.app.video.mountpointOf(driving.carId), { timeout: 10_000 })
      .not.toBeNull();
    expect((await admin.listMountpoints()).map((m) => m.id)).toContain(streamId);
    // Nobody drives it: nobody can watch (the control page needs a session), so no stream yet.
    expect(car.messages.filter((m) => m.type === 'video')).toEqual([]);

    await takeCar(testApp.app, driving);
    const target = await car.nextOfType('video', 10_000);
    expect(target).toMatchObject({ type: 'video', host: '127.0.0.1', codec: 'h264' });
    // The car sends to its port on the ingest, which forwards to the mountpoint what authenticates.
    expect(target.port).toBe(testApp.app.video.ingest.portOf(driving.carId));
    expect(target.port).not.toBe(testApp.app.video.mountpointOf(driving.carId)?.port);
    expect(target.srtp).toEqual({
      suite: 'AES_CM_128_HMAC_SHA1_80',
      key: testApp.app.video.mountpointOf(driving.carId)?.srtpKey,
    });

    const kicked = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(kicked.statusCode).toBe(200);
    await car.nextOfType('video-stop', 10_000);
    // The mountpoint stays for the next driver.
    expect((await admin.listMountpoints()).map((m) => m.id)).toContain(streamId);
    await car.close();
  });

  it('has a car that connects during a driving session stream at once', async () => {
    const { driving, car } = await onlineCar('Video 1b');
    await takeCar(testApp.app, driving);
    await car.nextOfType('video', 10_000);
    await car.close();
    const again = await connectCar(host, driving.carId, driving.secret);
    expect(await again.nextOfType('video', 10_000)).toMatchObject({ type: 'video', codec: 'h264' });
    await again.close();
  });

  it('gives the PIN to the driver and admins only, and Janus refuses to play without it', async () => {
    const { driving, car, streamId } = await onlineCar('Video 2');
    const { headers } = await takeCar(testApp.app, driving);
    await car.nextOfType('video', 10_000);
    const stranger = await buildUser(testApp.app.database.db);

    const forDriver = await carStatus(testApp, driving.carId, headers);
    const forAdmin = await carStatus(testApp, driving.carId, driving.adminHeaders);
    const forStranger = await carStatus(testApp, driving.carId, await authHeader(testApp.app, stranger));
    expect(forDriver.video?.available).toBe(true);
    expect(forDriver.video?.pin).toEqual(expect.any(String));
    expect(forAdmin.video?.pin).toBe(forDriver.video?.pin);
    expect(forStranger.video).toEqual({ available: true, pin: null });
    // The car list never carries video details.
    const list = await testApp.app.inject({ method: 'GET', url: '/api/cars', headers });
    expect((list.json() as Car[]).every((c) => c.video === undefined)).toBe(true);

    expect(await watchResult(admin, streamId, null)).toBe(453); // missing element: the pin
    expect(await watchResult(admin, streamId, 'not-the-pin')).toBe(457);
    expect(await watchResult(admin, streamId, forDriver.video?.pin ?? '')).toBe(0);

    // When the session ends the PIN changes: the former driver's no longer opens the stream.
    const kicked = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(kicked.statusCode).toBe(200);
    await expect
      .poll(async () => watchResult(admin, streamId, forDriver.video?.pin ?? ''), { timeout: 10_000 })
      .toBe(457);
    const newPin = (await carStatus(testApp, driving.carId, driving.adminHeaders)).video?.pin;
    expect(newPin).not.toBe(forDriver.video?.pin);
    expect(await watchResult(admin, streamId, newPin ?? '')).toBe(0);
    await car.close();
  });

  it('re-creates the mountpoint after Janus is killed and sends the car its new target', async () => {
    const { driving, car, streamId } = await onlineCar('Video 3');
    await takeCar(testApp.app, driving);
    await car.nextOfType('video', 10_000);
    const supervisor = testApp.app.video.janus.supervisor;
    const pid = supervisor?.pid;
    if (!supervisor || pid === undefined) throw new Error('no janus');
    const before = car.messages.length;
    process.kill(pid, 'SIGKILL');
    await expect
      .poll(() => car.messages.slice(before).some((m) => m.type === 'video'), { timeout: 30_000 })
      .toBe(true);
    const again = car.messages.slice(before).find((m) => m.type === 'video');
    expect(again).toMatchObject({ type: 'video', host: '127.0.0.1', codec: 'h264' });
    expect(supervisor.pid).not.toBe(pid);
    const fresh = new JanusClient(supervisor.httpUrl, supervisor.adminKey);
    expect((await fresh.listMountpoints()).map((m) => m.id)).toContain(streamId);
    admin = fresh;
    await car.close();
  }, 60_000);

  it('destroys the mountpoint when the car is deleted', async () => {
    const { driving, streamId } = await onlineCar('Video 4');
    await expect
      .poll(() => testApp.app.video.mountpointOf(driving.carId), { timeout: 10_000 })
      .not.toBeNull();
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/api/admin/cars/${driving.carId}`,
      headers: driving.adminHeaders,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    await expect
      .poll(async () => (await admin.listMountpoints()).map((m) => m.id), { timeout: 10_000 })
      .not.toContain(streamId);
  });

  describe('/janus', () => {
    const openJanus = (token: string, origin?: string) => openJanusSocket(testApp.app, host, token, origin);

    it('refuses anonymous callers and other sites', async () => {
      const member = await buildUser(testApp.app.database.db);
      const token = await tokenFor(testApp.app, member);
      expect(await refusedStatus(openJanus('not-a-token'))).toBe(401);
      expect(await refusedStatus(openJanus(token, 'https://evil.example'))).toBe(403);
    });

    it('speaks janus-protocol, lets a member watch with the PIN and refuses everything else', async () => {
      const { driving, car, streamId } = await onlineCar('Video 5');
      const { driver } = await takeCar(testApp.app, driving);
      await car.nextOfType('video', 10_000);
      const pin = (await carStatus(testApp, driving.carId, driving.adminHeaders)).video?.pin;
      const janus = await openJanus(await tokenFor(testApp.app, driver));
      expect(janus.ws.protocol).toBe('janus-protocol');

      janus.send({ janus: 'create', transaction: 'c1' });
      const created = await janusAnswer(janus, 'c1');
      expect(created.janus).toBe('success');
      const session = (created.data as { id: number }).id;

      janus.send({
        janus: 'attach',
        plugin: 'janus.plugin.echotest',
        session_id: session,
        transaction: 'a0',
      });
      expect(await janusAnswer(janus, 'a0')).toMatchObject({ janus: 'error', error: { code: 403 } });

      janus.send({
        janus: 'attach',
        plugin: 'janus.plugin.streaming',
        session_id: session,
        transaction: 'a1',
      });
      const attached = await janusAnswer(janus, 'a1');
      expect(attached.janus).toBe('success');
      const handle = (attached.data as { id: number }).id;

      // Admin requests never reach Janus from a browser.
      for (const request of ['create', 'destroy', 'edit', 'list', 'info', 'switch']) {
        janus.send({
          janus: 'message',
          session_id: session,
          handle_id: handle,
          transaction: `m-${request}`,
          body: { request, id: streamId },
        });
        expect(await janusAnswer(janus, `m-${request}`)).toMatchObject({
          janus: 'error',
          error: { code: 403 },
        });
      }
      // Nor does anything on a session this socket did not create.
      janus.send({ janus: 'keepalive', session_id: session + 1, transaction: 'k1' });
      expect(await janusAnswer(janus, 'k1')).toMatchObject({ janus: 'error', error: { code: 403 } });

      janus.send({
        janus: 'message',
        session_id: session,
        handle_id: handle,
        transaction: 'w1',
        body: { request: 'watch', id: streamId, pin },
      });
      const offer = await janusAnswer(janus, 'w1');
      expect(offer).toMatchObject({ janus: 'event', jsep: { type: 'offer' } });
      expect(String((offer.jsep as { sdp: string }).sdp)).toContain('H264');
      await janus.close();
      await car.close();
    });

    it('lets one socket hold two sessions at most, and a destroyed one frees its place', async () => {
      const member = await buildUser(testApp.app.database.db);
      const janus = await openJanus(await tokenFor(testApp.app, member));
      const sessions: number[] = [];
      for (const transaction of ['s1', 's2']) {
        janus.send({ janus: 'create', transaction });
        const created = await janusAnswer(janus, transaction);
        expect(created.janus).toBe('success');
        sessions.push((created.data as { id: number }).id);
      }
      janus.send({ janus: 'create', transaction: 's3' });
      expect(await janusAnswer(janus, 's3')).toMatchObject({
        janus: 'error',
        error: { code: 403, reason: 'Refused: too many sessions' },
      });

      janus.send({ janus: 'destroy', session_id: sessions[0], transaction: 'd1' });
      expect(await janusAnswer(janus, 'd1')).toMatchObject({ janus: 'success' });
      janus.send({ janus: 'create', transaction: 's4' });
      expect(await janusAnswer(janus, 's4')).toMatchObject({ janus: 'success' });
      await janus.close();
    });
  });
});

describe('live video through an external Janus', () => {
  let janusDir: string;
  let janus: JanusSupervisor;
  let admin: JanusClient;
  let testApp: StartedTestApp;
  let host: string;

  beforeAll(async () => {
    // Another Janus than the server's own: started here, reached through JANUS_URL and its key.
    janusDir = await mkdtemp(join(tmpdir(), 'telerace-external-janus-'));
    janus = new JanusSupervisor({ dataDir: janusDir, log: quietLogger() });
    await janus.start();
    admin = new JanusClient(janus.httpUrl, janus.adminKey);
    testApp = await startTestApp({
      VIDEO: 'auto',
      JANUS_URL: janus.wsUrl,
      JANUS_API_URL: janus.httpUrl,
      JANUS_ADMIN_KEY: janus.adminKey,
      JANUS_CHECK_SECONDS: '1',
    });
    await testApp.app.videoStarted();
    host = await listen(testApp.app);
  }, 60_000);
  afterAll(async () => {
    await testApp.close();
    await janus.stop();
    await rm(janusDir, { recursive: true, force: true });
  });

  it('re-creates a mountpoint the external Janus lost, and tells the driven car where to stream', async () => {
    const driving = await createCar(testApp.app, 'External 1');
    const car = await connectCar(host, driving.carId, driving.secret);
    await takeCar(testApp.app, driving);
    const first = await car.nextOfType('video', 10_000);
    const { stream_id: streamId } = await carStatus(testApp, driving.carId, driving.adminHeaders);
    const listed = async () => (await admin.listMountpoints()).map((mountpoint) => mountpoint.id);
    expect(await listed()).toContain(streamId);

    // Janus loses it, as when it restarts on its own.
    await admin.destroyMountpoint(streamId, mountpointSecret(janus.adminKey, streamId));
    expect(await listed()).not.toContain(streamId);
    await vi.waitFor(async () => expect(await listed()).toContain(streamId), {
      timeout: 10_000,
      interval: 200,
    });
    expect(testApp.logText()).toContain('mountpoint missing');
    const again = testApp.app.video.mountpointOf(driving.carId);
    // Made again with a new key, which the car hears of (its port on the ingest stays).
    expect(await car.nextOfType('video', 10_000)).toMatchObject({
      port: first.port,
      srtp: { key: again?.srtpKey },
    });
    expect(again?.srtpKey).not.toBe((first.srtp as { key: string }).key);
    await car.close();
  });
});

describe('live video off', () => {
  let testApp: StartedTestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ VIDEO: 'off' });
  });
  afterAll(() => testApp.close());

  it('says video is unavailable and sends the car no target', async () => {
    const host = await listen(testApp.app);
    const driving = await createCar(testApp.app, 'No video');
    const car = await connectCar(host, driving.carId, driving.secret);
    const { headers } = await takeCar(testApp.app, driving);
    const status = await carStatus(testApp, driving.carId, headers);
    expect(status.video).toEqual({ available: false, pin: null });
    await expect(car.nextOfType('video', 1_000)).rejects.toThrow(/no matching message/);
    await car.close();
  });
});

describe('live video without Janus installed', () => {
  it('runs without video and logs the install command once', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    let testApp: StartedTestApp | undefined;
    try {
      testApp = await startTestApp({ VIDEO: 'auto' });
      await testApp.app.videoStarted();
    } finally {
      process.env.PATH = path;
    }
    try {
      expect(testApp.app.video.available).toBe(false);
      const warnings = testApp.logLines().filter((line) => String(line.msg).includes('apt-get install'));
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.msg)).toContain('janus');
    } finally {
      await testApp.close();
    }
  });
});
