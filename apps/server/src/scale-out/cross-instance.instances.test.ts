/**
 * Two real server instances (A, B) on one PostgreSQL and one Redis (test/instances.ts): what one
 * instance does reaches the other. A driver whose control socket is on A drives a car whose agent
 * is on B, and the car stops when the driver's socket closes (bound as in safety.once.test.ts: 250 ms);
 * the same over the drive channel (issue 27: its DataChannel ends on A, the driver's instance);
 * a lobby opened from A reaches the event sockets on both; a ban on A closes the member's
 * sockets on B and B refuses the member's very next request. Each instance logs without the
 * Redis URL.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DriveChannelClient } from '../test/drive-channel-client.js';
import {
  type Instance,
  memberOn,
  startTwoInstances,
  TEST_REDIS_URL,
  type TwoInstances,
} from '../test/instances.js';
import { addSimCar, apiCall, killProcess, lineAppears, takeCarWithCode } from '../test/process.js';
import { controllerUrl, eventsUrl, openSocket, type TestSocket } from '../test/sockets.js';

const CONTROLLER_CLOSED_BOUND_MS = 250;

const hostOf = (instance: Instance) => `127.0.0.1:${instance.port}`;

describe('two instances', () => {
  let pair: TwoInstances;
  const children: ChildProcess[] = [];
  const sockets: { close(): unknown }[] = [];

  beforeAll(async () => {
    // A password Redis does not ask for (it answers so and ioredis goes on): the logs must not show it.
    const url = new URL(TEST_REDIS_URL);
    url.password = 'scale-out-redis-secret';
    pair = await startTwoInstances({ env: { REDIS_URL: url.toString() } });
  }, 120_000);
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const child of children.splice(0)) await killProcess(child);
  });
  afterAll(async () => {
    await pair?.dispose();
  });

  it("accept each other's access tokens and see the same accounts", async () => {
    const { user } = await apiCall<{ user: { email: string } }>(
      pair.b.base,
      'GET',
      '/me',
      undefined,
      pair.adminToken,
    );
    expect(user.email).toBe(pair.admin.email);
  });

  it(`a driver on A drives a car on B, which stops within ${CONTROLLER_CLOSED_BOUND_MS} ms of the driver's socket closing`, async () => {
    // The admin adds the car on A; its agent connects to B.
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Car on B');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);

    // The car list on A knows it is online (car.online crossed from B): the code opens it there.
    const controlToken = await takeCarWithCode(pair.a.base, carId, pair.adminToken);
    const socket = new WebSocket(controllerUrl(hostOf(pair.a), carId, pair.adminToken, controlToken), {
      headers: { origin: pair.a.base },
      perMessageDeflate: false,
    });
    sockets.push(socket);
    const heard: { type: string; online?: boolean; telemetry?: { speed?: number } }[] = [];
    socket.on('message', (data) => heard.push(JSON.parse(data.toString())));
    await once(socket, 'open');
    const moving = new Promise<void>((resolve) => {
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; telemetry?: { speed?: number } };
        if (message.type === 'telemetry' && (message.telemetry?.speed ?? 0) > 0.5) resolve();
      });
    });
    const send = () => socket.send(JSON.stringify({ type: 'drive', throttle: 1, steer: 0 }));
    send();
    const repeat = setInterval(send, 100);
    socket.once('close', () => clearInterval(repeat));
    // Drive went A → Redis → B → car; telemetry came back B → Redis → A.
    await moving;
    expect(heard[0]).toEqual({ type: 'car-status', online: true });

    const neutral = lineAppears(agent, /neutral \(/);
    const closedAt = performance.now();
    clearInterval(repeat);
    socket.close(1000, 'tab closed');
    const { line, at } = await neutral;
    console.info(
      `cross-instance controller close → car neutral: ${(at - closedAt).toFixed(1)} ms (${line.trim()})`,
    );
    expect(at - closedAt).toBeLessThanOrEqual(CONTROLLER_CLOSED_BOUND_MS);
    // The server said stop (not the car's own deadman).
    expect(line).toMatch(/stop from the server/);
  }, 60_000);

  it(`a driver on A drives a car on B over the drive channel, and the car stops within ${CONTROLLER_CLOSED_BOUND_MS} ms of the socket closing`, async () => {
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Channel car on B');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);
    const controlToken = await takeCarWithCode(pair.a.base, carId, pair.adminToken);
    const controller = await openSocket(controllerUrl(hostOf(pair.a), carId, pair.adminToken, controlToken), {
      origin: pair.a.base,
    });
    sockets.push(controller);
    await controller.nextOfType('car-status');
    // The DataChannel ends on A, where the driver's socket is; its drives cross to B like the socket's.
    const channel = await DriveChannelClient.open(controller.ws);
    sockets.push({ close: () => channel.close() });
    let seq = 0;
    const drive = () => channel.drive(1, 0, ++seq);
    drive();
    const repeat = setInterval(drive, 100);
    try {
      // Telemetry came back B → Redis → A: the car moves on the channel's drives alone.
      await controller.next(
        (m) => m.type === 'telemetry' && ((m.telemetry as { speed?: number }).speed ?? 0) > 0.5,
        15_000,
      );
      await channel.acked(1);
    } finally {
      clearInterval(repeat);
    }
    expect(controller.messages.filter((m) => m.type === 'error')).toEqual([]);

    const neutral = lineAppears(agent, /neutral \(/);
    const closedAt = performance.now();
    controller.ws.close(1000, 'tab closed');
    const { line, at } = await neutral;
    expect(at - closedAt).toBeLessThanOrEqual(CONTROLLER_CLOSED_BOUND_MS);
    expect(line).toMatch(/stop from the server/);
  }, 60_000);

  it('a lobby opened on A reaches the event sockets on both instances', async () => {
    // The admin holds a car (its agent on B) and joins the race from A: the lobby opens.
    const { carId, agent } = await addSimCar(pair.b.base, pair.adminToken, 'Racer on B');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);
    await takeCarWithCode(pair.a.base, carId, pair.adminToken);
    const onA = await openSocket(eventsUrl(hostOf(pair.a), pair.adminToken), { origin: pair.a.base });
    const onB = await openSocket(eventsUrl(hostOf(pair.b), pair.adminToken), { origin: pair.b.base });
    sockets.push(onA, onB);
    const lobby = (socket: TestSocket) =>
      socket.next((m) => {
        const state = m.payload as { race_status?: string; participants?: { carId: number }[] } | undefined;
        return (
          m.type === 'race_state_update' &&
          state?.race_status === 'lobby' &&
          (state.participants ?? []).some((participant) => participant.carId === carId)
        );
      }, 10_000);
    const heard = Promise.all([lobby(onA), lobby(onB)]);
    onA.send({ type: 'join_lobby', carId });
    const [a, b] = await heard;
    expect(b).toEqual(a);
  }, 30_000);

  it("a ban on A closes the member's sockets on B, and B refuses the member's next request", async () => {
    const banned = await memberOn(pair.b, 'banned_on_a');
    const onB = await openSocket(eventsUrl(hostOf(pair.b), banned.token), { origin: pair.b.base });
    sockets.push(onB);
    // B has read (and cached) the member's row.
    await apiCall(pair.b.base, 'GET', '/me', undefined, banned.token);

    await apiCall(pair.a.base, 'POST', `/admin/users/${banned.id}/ban`, { ban: true }, pair.adminToken);
    const closed = await onB.closed;
    expect(closed.code).not.toBe(1006);
    const refused = await fetch(`${pair.b.base}/api/me`, {
      headers: { authorization: `Bearer ${banned.token}` },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
  }, 30_000);

  it('never write the Redis URL in their logs', () => {
    for (const instance of [pair.a, pair.b]) {
      const { stdout, stderr } = instance.server.output();
      expect(stdout + stderr).not.toContain('scale-out-redis-secret');
    }
  });
});
