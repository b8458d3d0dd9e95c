/**
 * A driver whose session ends stops watching, against the real Janus the server runs itself
 * (VIDEO=auto). Rotating the PIN alone left Janus's existing viewer in place, so a kicked driver's
 * player kept receiving the next driver's video. Here a fake camera streams RTP to the car's
 * mountpoint and real WebRTC peers (werift) watch it through `/janus` as the control page does:
 * the former driver's peer stops receiving within a second of the admin's kick, Janus drops the
 * viewer, the old PIN opens nothing, and the next driver receives with the new one. A member's
 * `/janus` sockets close when their sessions are revoked (ban, password change, deletion) or when
 * the very session that opened them ends (log-out).
 */
import { randomUUID } from 'node:crypto';
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema.js';
import type { StartedTestApp } from '../../test/app.js';
import { holdReads } from '../../test/database-hiccup.js';
import { buildAdmin, buildUser, tokenFor } from '../../test/factories.js';
import { connectCar, createCar, refusedStatus, takeCar } from '../../test/sockets.js';
import { openJanusSocket, startOwnJanusTestApp } from '../../test/video.js';
import { carVideo, janusViewers, type Viewer } from '../../test/viewers.js';
import { fakeCamera, type WebRtcViewer } from '../../test/webrtc.js';
import { accessTokenKeys, signAccessToken } from '../auth/access-token.js';
import type { JanusClient } from './janus-client.js';
import { mountpointSecret } from './mountpoints.js';

/** What the issue asks: the old viewer stops receiving within a second. */
const EVICTION_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Resolves with the promise's value, or null after EVICTION_MS. */
const within = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<null>((resolve) => setTimeout(() => resolve(null), EVICTION_MS))]);

describe('a driver whose session ends stops watching (real Janus, real WebRTC)', () => {
  let testApp: StartedTestApp;
  let host: string;
  let admin: JanusClient;
  const cameras: (() => void)[] = [];
  let viewers: ReturnType<typeof janusViewers>;

  beforeAll(async () => {
    ({ testApp, host, janusAdmin: admin } = await startOwnJanusTestApp());
    viewers = janusViewers(testApp.app, host);
  }, 60_000);
  afterAll(async () => {
    for (const stop of cameras) stop();
    await viewers?.close();
    await testApp.close();
  });

  const secretOf = (streamId: number) => mountpointSecret(admin.adminKey ?? '', streamId);
  /** Janus's own count of the mountpoint's viewers (the plugin's `info`, with the secret). */
  const viewersOf = async (streamId: number) =>
    Number((await admin.info(streamId, secretOf(streamId))).viewers);

  const openJanus = (token: string) => openJanusSocket(testApp.app, host, token);
  const attach: ReturnType<typeof janusViewers>['attach'] = (...args) => viewers.attach(...args);
  const watch: ReturnType<typeof janusViewers>['watch'] = (...args) => viewers.watch(...args);
  const watcher: ReturnType<typeof janusViewers>['watcher'] = (...args) => viewers.watcher(...args);
  const receive: ReturnType<typeof janusViewers>['receive'] = (...args) => viewers.receive(...args);

  /** The peer received nothing later than EVICTION_MS after `since`, nor in the last 0.5 s. */
  async function expectStopped(peer: WebRtcViewer, since: number): Promise<void> {
    await sleep(EVICTION_MS + 300 - (Date.now() - since));
    const count = peer.packets;
    await sleep(500);
    expect(peer.packets).toBe(count);
    expect(peer.lastPacketAt - since).toBeLessThanOrEqual(EVICTION_MS);
  }

  /** Whether the viewer's handle heard from Janus that its stream stopped or was hung up. */
  const stopped = (viewer: Viewer) => (m: Record<string, unknown>) =>
    m.sender === viewer.handle &&
    (m.janus === 'hangup' ||
      (m.janus === 'event' &&
        ['stopped', 'kicked', 'kicked_all'].includes(
          String((m.plugindata as { data?: { result?: { status?: unknown } } })?.data?.result?.status),
        )));

  /** A car being driven, its (fake) camera streaming to its mountpoint as the car was told. */
  async function drivenCar(name: string) {
    const driving = await createCar(testApp.app, name);
    const car = await connectCar(host, driving.carId, driving.secret);
    const taken = await takeCar(testApp.app, driving);
    const target = await car.nextOfType('video', 10_000);
    // The camera goes on sending after `video-stop`: the worst case, a car that streams on.
    cameras.push(fakeCamera(target));
    const status = await carVideo(testApp.app, driving.carId, taken.headers);
    if (status.pin === null) throw new Error('the driver got no PIN');
    return { driving, car, ...taken, streamId: status.streamId, pin: status.pin };
  }

  it('evicts the kicked driver’s viewer within a second; the old PIN is refused, the next driver watches', async () => {
    const { driving, car, accessToken, streamId, pin } = await drivenCar('Evict 1');
    const former = await watcher(accessToken, streamId, pin);
    const formerPeer = await receive(former);
    expect(await viewersOf(streamId)).toBe(1);

    const kickedAt = Date.now();
    const kicked = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/cars/${driving.carId}/kick`,
      headers: driving.adminHeaders,
    });
    expect(kicked.statusCode, kicked.body).toBe(200);
    // Janus tells the former driver's handle its stream stopped, and no longer counts the viewer.
    await former.janus.next(stopped(former), EVICTION_MS);
    await expect.poll(() => viewersOf(streamId), { timeout: EVICTION_MS, interval: 50 }).toBe(0);
    expect(Date.now() - kickedAt).toBeLessThanOrEqual(EVICTION_MS + 200);
    await expectStopped(formerPeer, kickedAt);

    // The former driver cannot come back with the PIN they had, on a new handle of the same socket.
    const again = await attach(former.janus, former.session);
    expect(await watch(former.janus, again.session, again.handle, streamId, pin)).toBe(457);

    // The next driver gets a new PIN and receives with it; the old one still opens nothing.
    const next = await takeCar(testApp.app, driving);
    const fresh = await carVideo(testApp.app, driving.carId, next.headers);
    expect(fresh.pin).not.toBeNull();
    expect(fresh.pin).not.toBe(pin);
    const nextPeer = await receive(await watcher(next.accessToken, streamId, fresh.pin ?? ''));
    expect(await viewersOf(streamId)).toBe(1);
    expect(await watch(former.janus, again.session, again.handle, streamId, pin)).toBe(457);
    expect(await viewersOf(streamId)).toBe(1);
    // The next driver's video flows; none of it reaches the former driver.
    const received = nextPeer.packets;
    await expect.poll(() => nextPeer.packets, { timeout: 5_000, interval: 50 }).toBeGreaterThan(received);
    expect(formerPeer.lastPacketAt - kickedAt).toBeLessThanOrEqual(EVICTION_MS);
    await car.close();
  });

  it('evicts a banned driver’s viewer and closes their /janus socket within a second', async () => {
    const { driving, car, driver, accessToken, streamId, pin } = await drivenCar('Evict 2');
    const viewer = await watcher(accessToken, streamId, pin);
    const peer = await receive(viewer);
    expect(await viewersOf(streamId)).toBe(1);

    const bannedAt = Date.now();
    const banned = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/users/${driver.id}/ban`,
      headers: driving.adminHeaders,
      payload: { ban: true },
    });
    expect(banned.statusCode, banned.body).toBe(200);
    expect((await within(viewer.janus.closed))?.code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
    await expect.poll(() => viewersOf(streamId), { timeout: EVICTION_MS, interval: 50 }).toBe(0);
    expect(Date.now() - bannedAt).toBeLessThanOrEqual(EVICTION_MS + 200);
    await expectStopped(peer, bannedAt);
    // And the banned member cannot open another.
    expect(await refusedStatus(openJanus(accessToken))).toBe(401);
    await car.close();
  });

  it('evicts the viewers when the car is deleted', async () => {
    const { driving, car, accessToken, streamId, pin } = await drivenCar('Evict 3');
    const viewer = await watcher(accessToken, streamId, pin);
    const peer = await receive(viewer);
    const deletedAt = Date.now();
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/api/admin/cars/${driving.carId}`,
      headers: driving.adminHeaders,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    await viewer.janus.next(stopped(viewer), EVICTION_MS);
    await expectStopped(peer, deletedAt);
    await viewer.janus.close();
    await car.close();
  });

  it('a demoted admin stops watching within a second, and the PIN they were shown opens nothing', async () => {
    const { driving, car, accessToken, streamId, pin } = await drivenCar('Evict 4');
    const watcherAdmin = await buildAdmin(testApp.app.database.db);
    const adminHeaders = { authorization: `Bearer ${await tokenFor(testApp.app, watcherAdmin)}` };
    expect((await carVideo(testApp.app, driving.carId, adminHeaders)).pin).toBe(pin);
    const viewer = await watcher(await tokenFor(testApp.app, watcherAdmin), streamId, pin);
    const peer = await receive(viewer);

    const demotedAt = Date.now();
    const demoted = await testApp.app.inject({
      method: 'POST',
      url: `/api/admin/users/${watcherAdmin.id}/toggle-admin`,
      headers: driving.adminHeaders,
      payload: { makeAdmin: false },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(demoted.json()).toMatchObject({ user: { is_admin: false } });
    expect((await within(viewer.janus.closed))?.code).toBe(SOCKET_CLOSE_CODES.roleChanged);
    await expectStopped(peer, demotedAt);

    // The PIN the admin saw no longer opens the car; the driver is shown the new one and watches.
    const member = await openJanus(await tokenFor(testApp.app, watcherAdmin));
    const handle = await attach(member);
    expect(await watch(member, handle.session, handle.handle, streamId, pin)).toBe(457);
    const fresh = await carVideo(testApp.app, driving.carId, { authorization: `Bearer ${accessToken}` });
    expect(fresh.pin).not.toBe(pin);
    await receive(await watcher(accessToken, streamId, fresh.pin ?? ''));
    await member.close();
    await car.close();
  });

  describe('/janus sockets follow the member’s sessions', () => {
    const keys = () =>
      accessTokenKeys(
        testApp.app.config.jwtSecret,
        testApp.app.config.accessTokenTtlSeconds,
        testApp.app.clock,
      );

    // The ban above goes through the real route; password changes and resets, deletions and
    // "log out everywhere" all end in this same event.
    it('closes every /janus socket of a member whose sessions are revoked, and only theirs', async () => {
      const member = await buildUser(testApp.app.database.db);
      const first = await openJanus(await tokenFor(testApp.app, member));
      const second = await openJanus(await signAccessToken(keys(), member.id, randomUUID()));
      const bystander = await openJanus(
        await tokenFor(testApp.app, await buildUser(testApp.app.database.db)),
      );
      testApp.app.events.emit('user.sessions-revoked', { userId: member.id, reason: 'password_changed' });
      expect((await within(first.closed))?.code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
      expect((await within(second.closed))?.code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
      expect(bystander.ws.readyState).toBe(bystander.ws.OPEN);
      await bystander.close();
    });

    it('closes only the sockets opened with the revoked session’s tokens (log-out)', async () => {
      const member = await buildUser(testApp.app.database.db);
      const [ended, kept] = [randomUUID(), randomUUID()];
      const endedSocket = await openJanus(await signAccessToken(keys(), member.id, ended));
      const keptSocket = await openJanus(await signAccessToken(keys(), member.id, kept));
      testApp.app.events.emit('session.revoked', { userId: member.id, sessionId: ended });
      expect((await within(endedSocket.closed))?.code).toBe(SOCKET_CLOSE_CODES.sessionRevoked);
      expect(keptSocket.ws.readyState).toBe(keptSocket.ws.OPEN);
      await keptSocket.close();
    });

    // The admission reads the member's row; a revocation made while it waits there (a ban on
    // another instance) still reaches the socket once it opens (sockets/member-sockets.ts).
    it('closes a /janus socket admitted while the member’s sessions were revoked', async () => {
      const { app } = testApp;
      const member = await buildUser(app.database.db);
      const token = await tokenFor(app, member);
      const held = await holdReads(app.database.db, 'users');
      const opening = openJanus(token);
      // Its admission window is open; it reads the member's row (not cached yet), and waits.
      await expect.poll(() => app.memberSockets.beingAdmitted).toBe(1);
      app.events.emit('user.sessions-revoked', { userId: member.id, reason: 'password_changed' });
      await held.release();
      const socket = await opening;
      expect((await within(socket.closed))?.code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
    });

    it('refuses an access token issued before the member’s tokens_valid_after', async () => {
      const member = await buildUser(testApp.app.database.db);
      const token = await tokenFor(testApp.app, member);
      expect((await openJanus(token).then((socket) => socket.close())).code).toBe(1005);
      await testApp.app.database.db
        .update(users)
        .set({ tokensValidAfter: new Date(Date.now() + 2_000) })
        .where(eq(users.id, member.id));
      // What every writer of a users row says after its commit (a password change does): the
      // member check's cache drops the row.
      testApp.app.events.emit('user.changed', { userId: member.id, username: member.username });
      expect(await refusedStatus(openJanus(token))).toBe(401);
    });
  });
});
