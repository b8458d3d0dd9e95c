/**
 * Rotating the servers' secrets leaves live video working (docs/operations.md "Secrets"), against
 * Janus run as its own service that keeps running across the servers' restarts:
 * - JWT_SECRET: a server restarted with a new one against the same Janus replaces the car's
 *   mountpoint as soon as the car is back (its secret derives from the admin key, not from
 *   JWT_SECRET: before, every mountpoint stayed refused, "wrong secret", until Janus restarted);
 *   a real WebRTC viewer receives the camera's RTP with the PIN the driver had. Members' access
 *   tokens signed with the old secret are refused; their sessions refresh.
 * - JANUS_ADMIN_KEY, in the documented order: Janus's files rewritten with the new key and Janus
 *   restarted, then the server with the new key: the car's video is back.
 * - A mountpoint Janus holds under a secret the server cannot derive (the order not followed):
 *   said once in the log with the remedy, not a warning at every attempt; a restart of Janus
 *   frees it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestEnvironment, type TestApp, type TestEnvironment } from '../../test/app.js';
import { refresh } from '../../test/auth.js';
import { authHeader, buildSession } from '../../test/factories.js';
import { connectCar, createCar, type Driving, listen, type TestSocket, takeCar } from '../../test/sockets.js';
import {
  type JanusService,
  janusAnswer,
  openJanusSocket,
  startJanusService,
  streamingHandle,
} from '../../test/video.js';
import { fakeCamera, WebRtcViewer } from '../../test/webrtc.js';
import { mountpointSecret } from './mountpoints.js';

/** A restarted server tells a returning car where to stream within this (it used to be never). */
const BOUND_MS = 10_000;

describe('rotating secrets against a Janus that keeps running', () => {
  let janus: JanusService;
  let environment: TestEnvironment;
  let running: { testApp: TestApp; host: string } | null = null;
  const sockets: TestSocket[] = [];
  const cameras: (() => void)[] = [];
  const peers: WebRtcViewer[] = [];

  beforeAll(async () => {
    janus = await startJanusService();
    environment = await createTestEnvironment({ VIDEO: 'auto', ...janus.env });
  }, 60_000);
  afterAll(async () => {
    for (const stop of cameras) stop();
    await Promise.all(peers.map((peer) => peer.close()));
    await Promise.all(sockets.map((socket) => socket.close()));
    await running?.testApp.app.close();
    await environment?.dispose();
    await janus?.dispose();
  });

  /** (Re)starts the server on the same database and DATA_DIR, with these settings changed. */
  async function restartServer(changes: Record<string, string>) {
    for (const socket of sockets.splice(0)) await socket.close();
    await running?.testApp.app.close();
    running = null;
    Object.assign(environment.env, changes);
    const testApp = await buildTestApp(environment, { persistentDatabase: true });
    await testApp.app.videoStarted();
    running = { testApp, host: await listen(testApp.app) };
    return running;
  }

  async function carVideo(testApp: TestApp, driving: Driving, headers: Record<string, string>) {
    const response = await testApp.app.inject({ url: `/api/cars/${driving.carId}/status`, headers });
    expect(response.statusCode, response.body).toBe(200);
    const car = response.json() as { stream_id: number; video?: { pin: string | null } };
    return { streamId: car.stream_id, pin: car.video?.pin ?? null };
  }

  async function carOnline(host: string, driving: Driving) {
    const car = await connectCar(host, driving.carId, driving.secret);
    sockets.push(car);
    return car;
  }

  /** A member's player watching through the server's /janus, as the control page does: RTP flows to it. */
  async function receive(testApp: TestApp, host: string, token: string, streamId: number, pin: string) {
    const janusSocket = await openJanusSocket(testApp.app, host, token);
    sockets.push(janusSocket);
    const { session, handle } = await streamingHandle(janusSocket);
    const watch = randomUUID();
    janusSocket.send({
      janus: 'message',
      session_id: session,
      handle_id: handle,
      transaction: watch,
      body: { request: 'watch', id: streamId, pin },
    });
    const offer = await janusAnswer(janusSocket, watch);
    expect(offer).toMatchObject({ janus: 'event', jsep: { type: 'offer' } });
    const peer = new WebRtcViewer();
    peers.push(peer);
    const start = randomUUID();
    janusSocket.send({
      janus: 'message',
      session_id: session,
      handle_id: handle,
      transaction: start,
      body: { request: 'start' },
      jsep: await peer.answer(offer.jsep as { type: string; sdp: string }),
    });
    expect(await janusAnswer(janusSocket, start)).toMatchObject({ janus: 'event' });
    await expect.poll(() => peer.packets, { timeout: 10_000 }).toBeGreaterThan(10);
  }

  it('JWT_SECRET: the restarted server takes the car’s mountpoint back from the same Janus, and a viewer gets video', async () => {
    const before = await restartServer({ JWT_SECRET: randomBytes(32).toString('base64url') });
    const driving = await createCar(before.testApp.app, 'Rotation JWT');
    let car = await carOnline(before.host, driving);
    const { driver, headers: oldHeaders } = await takeCar(before.testApp.app, driving);
    await car.nextOfType('video', 10_000);
    const { streamId, pin } = await carVideo(before.testApp, driving, oldHeaders);
    if (pin === null) throw new Error('the driver got no PIN');
    const { token: refreshToken } = await buildSession(before.testApp.app.database.db, driver);

    const after = await restartServer({ JWT_SECRET: randomBytes(32).toString('base64url') });
    const { app } = after.testApp;
    // The mountpoint the first run made is still on Janus, under the secret it was given then.
    expect((await janus.admin.listMountpoints()).map((mountpoint) => mountpoint.id)).toContain(streamId);

    car = await carOnline(after.host, driving);
    const target = await car.nextOfType('video', BOUND_MS);
    expect(target.port).toBe(app.video.ingest.portOf(driving.carId));
    // Janus's mountpoint is the one this server made: its secret opens it, with the PIN kept.
    const info = await janus.admin.info(streamId, mountpointSecret(janus.adminKey, streamId));
    expect(info.pin).toBe(pin);

    // What JWT_SECRET really signs: access tokens. The old one is refused; the session refreshes.
    expect((await app.inject({ url: '/api/me', headers: oldHeaders })).statusCode).toBe(401);
    const refreshed = await refresh(app, refreshToken);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const accessToken = (refreshed.json() as { accessToken: string }).accessToken;
    expect((await carVideo(after.testApp, driving, { authorization: `Bearer ${accessToken}` })).pin).toBe(
      pin,
    );

    cameras.push(fakeCamera(target));
    await receive(after.testApp, after.host, accessToken, streamId, pin);
    expect(after.testApp.logText()).not.toContain('video mountpoint operation failed');
    expect(after.testApp.logText()).not.toContain('another secret');
  }, 120_000);

  it('JANUS_ADMIN_KEY: Janus restarted with the new key, then the server: the car’s video is back', async () => {
    const before = running ?? (await restartServer({}));
    const driving = await createCar(before.testApp.app, 'Rotation key');
    let car = await carOnline(before.host, driving);
    const { driver } = await takeCar(before.testApp.app, driving);
    await car.nextOfType('video', 10_000);

    const newKey = randomBytes(24).toString('base64url');
    await janus.reconfigure({ JANUS_ADMIN_KEY: newKey });
    await janus.kill();
    await janus.start();
    const after = await restartServer({ JANUS_ADMIN_KEY: newKey });
    car = await carOnline(after.host, driving);
    const target = await car.nextOfType('video', BOUND_MS);
    const headers = await authHeader(after.testApp.app, driver);
    const { streamId, pin } = await carVideo(after.testApp, driving, headers);
    const info = await janus.admin.info(streamId, mountpointSecret(newKey, streamId));
    expect(info.pin).toBe(pin);
    expect(target.port).toBe(after.testApp.app.video.ingest.portOf(driving.carId));
  }, 120_000);

  it('a mountpoint held under another secret: said once, and a restart of Janus frees it', async () => {
    const { testApp, host } = running ?? (await restartServer({}));
    const driving = await createCar(testApp.app, 'Rotation foreign');
    const { streamId } = await carVideo(testApp, driving, driving.adminHeaders);
    // What a Janus kept from before a key change looks like: the car's id, a secret not derived here.
    await janus.admin.createMountpoint({ id: streamId, pin: 'old', secret: 'not-derivable', codec: 'h264' });
    const said = () =>
      testApp.logLines().filter((line) => String(line.msg).includes('under another secret')).length;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const car = await carOnline(host, driving);
      await expect.poll(said, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => testApp.app.video.mountpointOf(driving.carId)).toBeNull();
      await car.close();
    }
    expect(said()).toBe(1);
    expect(testApp.logText()).not.toContain('video mountpoint operation failed');

    await janus.kill();
    await janus.start();
    const car = await carOnline(host, driving);
    await expect
      .poll(() => testApp.app.video.mountpointOf(driving.carId), { timeout: BOUND_MS })
      .not.toBeNull();
    const info = await janus.admin.info(streamId, mountpointSecret(janus.adminKey, streamId));
    expect(info.pin).toEqual(expect.any(String));
    await car.close();
  }, 120_000);
});
