/**
 * Only the car's own, encrypted stream is shown (issue 43): against the real Janus the server runs
 * itself, a member watches the car they drive through `/janus` with a real WebRTC peer (werift)
 * that counts the RTP it receives. Before SRTP, a stranger's plain H.264 sent to the mountpoint's
 * port showed in the driver's picture. Now the mountpoint takes only packets encrypted and
 * authenticated under the key the server gave the car — not plain RTP, not another key, not a
 * replay of the car's own packets — and rotating the car's secret gives the car a new key under
 * which the old one opens nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedTestApp } from '../../test/app.js';
import { connectCar, createCar, type TestSocket, takeCar } from '../../test/sockets.js';
import { startOwnJanusTestApp } from '../../test/video.js';
import { carVideo, janusViewers } from '../../test/viewers.js';
import { type CameraTarget, fakeCamera, replay, type WebRtcViewer } from '../../test/webrtc.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long enough for 45 of the fake camera's packets, well past Janus's relay. */
const SENDING_MS = 1_500;

describe("a car's video: only its own encrypted stream reaches a viewer (real Janus, real WebRTC)", () => {
  let testApp: StartedTestApp;
  let host: string;
  let viewers: ReturnType<typeof janusViewers>;
  const cameras: (() => void)[] = [];
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    ({ testApp, host } = await startOwnJanusTestApp());
    viewers = janusViewers(testApp.app, host);
  }, 60_000);
  afterAll(async () => {
    for (const stop of cameras) stop();
    for (const socket of sockets) await socket.close();
    await viewers?.close();
    await testApp.close();
  });

  /** Sends from `camera` for SENDING_MS, then stops it; resolves how many packets `peer` got meanwhile. */
  async function receivedWhile(peer: WebRtcViewer, start: () => () => void): Promise<number> {
    const before = peer.packets;
    const stop = start();
    cameras.push(stop);
    await sleep(SENDING_MS);
    stop();
    await sleep(200);
    return peer.packets - before;
  }

  /** A driven car, told its target, and its driver's connected (not yet receiving) viewer. */
  async function watchedCar(name: string) {
    const driving = await createCar(testApp.app, name);
    const car = await connectCar(host, driving.carId, driving.secret);
    sockets.push(car);
    const taken = await takeCar(testApp.app, driving);
    const target = (await car.nextOfType('video', 10_000)) as CameraTarget & {
      port: number;
      srtp: { key: string };
    };
    const { streamId, pin } = await carVideo(testApp.app, driving.carId, taken.headers);
    if (pin === null) throw new Error('the driver got no PIN');
    const peer = await viewers.start(await viewers.watcher(taken.accessToken, streamId, pin));
    return { driving, car, target, streamId, pin, taken, peer };
  }

  it("gives the car an SRTP key; a stranger's plain RTP, or RTP under another key, reaches no viewer; the car's does", async () => {
    const { driving, target, peer } = await watchedCar('SRTP 1');
    expect(target.srtp).toMatchObject({ suite: 'AES_CM_128_HMAC_SHA1_80' });
    expect(Buffer.from(target.srtp.key, 'base64')).toHaveLength(30);

    const plain = { host: target.host, port: target.port };
    expect(await receivedWhile(peer, () => fakeCamera(plain, { ssrc: 0x5752_414e }))).toBe(0);
    const otherKey = { ...plain, srtp: { key: Buffer.alloc(30, 1).toString('base64') } };
    expect(await receivedWhile(peer, () => fakeCamera(otherKey, { ssrc: 0x5752_414f }))).toBe(0);
    expect(await receivedWhile(peer, () => fakeCamera(target))).toBeGreaterThan(20);
    // The ingest counts what it refused (telerace_video_ingest_packets_total{outcome="refused"}).
    await expect
      .poll(() => testApp.app.video.ingest.figuresOf(driving.carId)?.counters.refused, { timeout: 3_000 })
      .toBeGreaterThanOrEqual(60);
  });

  it("refuses a replay of the car's own packets, captured on the wire", async () => {
    const { target, peer } = await watchedCar('SRTP 2');
    const captured: Buffer[] = [];
    expect(
      await receivedWhile(peer, () => fakeCamera(target, { tap: (packet) => captured.push(packet) })),
    ).toBeGreaterThan(20);
    expect(captured.length).toBeGreaterThan(30);

    const before = peer.packets;
    await replay(String(target.host), target.port, captured);
    await sleep(200);
    expect(peer.packets).toBe(before);
  });

  it('a rotated car secret gives the car a new key: the old one reaches no viewer, the new one does', async () => {
    const { driving, car, target: old, taken } = await watchedCar('SRTP 3');
    const rotated = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/rotate-secret`,
      headers: driving.adminHeaders,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    await car.closed;
    const secret = (rotated.json() as { secret: string }).secret;
    const again = await connectCar(host, driving.carId, secret);
    sockets.push(again);
    const target = (await again.nextOfType('video', 10_000)) as CameraTarget & {
      port: number;
      srtp: { key: string };
    };
    expect(target.srtp.key).not.toBe(old.srtp.key);

    // The driver watches the car's new mountpoint.
    const { streamId, pin } = await carVideo(testApp.app, driving.carId, taken.headers);
    if (pin === null) throw new Error('the driver lost the PIN');
    const peer = await viewers.start(await viewers.watcher(taken.accessToken, streamId, pin));
    const oldKey = { host: target.host, port: target.port, srtp: old.srtp };
    expect(await receivedWhile(peer, () => fakeCamera(oldKey))).toBe(0);
    expect(await receivedWhile(peer, () => fakeCamera(target, { ssrc: 0x4e45_5721 }))).toBeGreaterThan(20);
  });
});
