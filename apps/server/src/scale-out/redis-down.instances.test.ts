/**
 * Two instances while Redis goes away (a Redis of this test's own, killed; the shared one is left
 * alone): a car driven from the other instance stops by its own deadman and its driver is told
 * it is offline; driving within one instance goes on; a driver of a car on the other instance
 * hears that it is offline (the existing car-status answer). When Redis comes back, delivery
 * between the instances resumes without a restart, and the revocations made meanwhile (a ban, a
 * demotion, a password change) reach the other instance (issue 39).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { type Instance, signUpMember, startTwoInstances, type TwoInstances } from '../test/instances.js';
import {
  addSimCar,
  apiCall,
  freePort,
  killProcess,
  lineAppears,
  takeCarWithCode,
  waitForStatus,
} from '../test/process.js';
import { controllerUrl, eventsUrl, openSocket } from '../test/sockets.js';

/** The car's deadman is 500 ms; its drive stopped arriving when Redis died. */
const DEADMAN_BOUND_MS = 750;
const CONTROLLER_CLOSED_BOUND_MS = 250;

/** A throw-away redis-server on a free port (or `port`, to bring one back), answering PING. */
async function startRedis(port?: number): Promise<{ process: ChildProcess; url: string }> {
  port ??= await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const pong = async () => {
    const ping = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let answer = '';
    ping.stdout.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    await once(ping, 'exit');
    expect(answer, 'redis-server did not start').toContain('PONG');
  };
  try {
    await vi.waitFor(pong, { timeout: 10_000, interval: 100 });
  } catch (error) {
    await killProcess(child);
    throw error;
  }
  return { process: child, url: `redis://127.0.0.1:${port}` };
}

/** A control socket on `instance` for `carId`, driving full throttle every 100 ms, with what it heard. */
async function drive(instance: Instance, carId: number, adminToken: string) {
  const controlToken = await takeCarWithCode(instance.base, carId, adminToken);
  const socket = new WebSocket(controllerUrl(`127.0.0.1:${instance.port}`, carId, adminToken, controlToken), {
    headers: { origin: instance.base },
    perMessageDeflate: false,
  });
  const heard: { type: string; online?: boolean; telemetry?: { speed?: number } }[] = [];
  const moving = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as (typeof heard)[number];
      heard.push(message);
      if (message.type === 'telemetry' && (message.telemetry?.speed ?? 0) > 0.5) resolve();
    });
  });
  await once(socket, 'open');
  const send = () => socket.send(JSON.stringify({ type: 'drive', throttle: 1, steer: 0 }));
  send();
  const repeat = setInterval(send, 100);
  socket.once('close', () => clearInterval(repeat));
  await moving;
  return {
    socket,
    heard,
    close: () => {
      clearInterval(repeat);
      socket.close(1000, 'tab closed');
    },
  };
}

/**
 * Drives the car (its agent on `instance`) from the same instance, closes the controller, and
 * checks the server's stop reached the car within CONTROLLER_CLOSED_BOUND_MS.
 */
async function driveAndStop(
  instance: Instance,
  car: { carId: number; agent: ChildProcess },
  adminToken: string,
): Promise<void> {
  const driving = await drive(instance, car.carId, adminToken);
  const stopped = lineAppears(car.agent, /neutral \(/);
  const closedAt = performance.now();
  driving.close();
  const stop = await stopped;
  expect(stop.at - closedAt).toBeLessThanOrEqual(CONTROLLER_CLOSED_BOUND_MS);
  expect(stop.line).toMatch(/stop from the server/);
}

/**
 * Two instances on a Redis of the block's own: started before its tests, stopped after them (even
 * when a test left it stopped with SIGSTOP); the car agents a test starts are killed after it.
 */
function twoInstancesOnOwnRedis() {
  const setup = {
    redis: undefined as unknown as { process: ChildProcess; url: string },
    pair: undefined as unknown as TwoInstances,
    children: [] as ChildProcess[],
  };
  beforeAll(async () => {
    setup.redis = await startRedis();
    setup.pair = await startTwoInstances({ env: { REDIS_URL: setup.redis.url } });
  }, 120_000);
  afterEach(async () => {
    for (const child of setup.children.splice(0)) await killProcess(child);
  });
  afterAll(async () => {
    await setup.pair?.dispose();
    const redis = setup.redis?.process;
    if (!redis) return;
    if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGCONT');
    await killProcess(redis);
  });
  return setup;
}

describe('two instances when Redis goes down', () => {
  const setup = twoInstancesOnOwnRedis();

  it('a car on B driven from A stops by its deadman and its driver hears it is offline; driving within B goes on; a driver on A of a car on B hears it is offline; once Redis is back, the car on B drives from A again', async () => {
    const remote = await addSimCar(setup.pair.b.base, setup.pair.adminToken, 'Remote car');
    const local = await addSimCar(setup.pair.b.base, setup.pair.adminToken, 'Local car');
    setup.children.push(remote.agent, local.agent);
    await Promise.all([
      lineAppears(remote.agent, /welcomed as car/),
      lineAppears(local.agent, /welcomed as car/),
    ]);
    const fromA = await drive(setup.pair.a, remote.carId, setup.pair.adminToken);

    const neutral = lineAppears(remote.agent, /neutral \(/);
    const killedAt = performance.now();
    await killProcess(setup.redis.process);
    const { line, at } = await neutral;
    console.info(`Redis killed → remote car neutral: ${(at - killedAt).toFixed(1)} ms (${line.trim()})`);
    expect(at - killedAt).toBeLessThanOrEqual(DEADMAN_BOUND_MS);
    expect(line).toMatch(/deadman/);
    await expect
      .poll(() => fromA.heard.some((m) => m.type === 'car-status' && m.online === false))
      .toBe(true);
    fromA.close();

    // Both instances still serve.
    await waitForStatus(`${setup.pair.a.base}/api/ready`, 200, 5_000);
    // Within B: drive and stop as ever.
    await driveAndStop(setup.pair.b, local, setup.pair.adminToken);

    // From A, the car on B is offline: its driver is told so at once (and nothing can reach it).
    const controlToken = await takeCarWithCode(setup.pair.a.base, local.carId, setup.pair.adminToken);
    const socket = new WebSocket(
      controllerUrl(`127.0.0.1:${setup.pair.a.port}`, local.carId, setup.pair.adminToken, controlToken),
      { headers: { origin: setup.pair.a.base }, perMessageDeflate: false },
    );
    const [first] = await once(socket, 'message');
    expect(JSON.parse(String(first))).toEqual({ type: 'car-status', online: false });
    socket.close();

    // Redis comes back on its address: with no restart of either instance, the car on B is
    // driven from A again (cross-instance delivery resumes by itself).
    const backAt = performance.now();
    setup.redis = await startRedis(Number(new URL(setup.redis.url).port));
    const again = await drive(setup.pair.a, remote.carId, setup.pair.adminToken);
    console.info(
      `Redis back → the car on B driven from A again: ${(performance.now() - backAt).toFixed(0)} ms`,
    );
    again.close();
  }, 90_000);
});

describe('two instances when Redis goes down: revocations', () => {
  const setup = twoInstancesOnOwnRedis();
  /** How soon after Redis is back B must act on them (its reconnect: at most 2 s between attempts). */
  const REACHED_BOUND_MS = 10_000;

  it('a ban, a demotion and a password change made on A while Redis is down reach B once it is back', async () => {
    const { a, b } = setup.pair;
    const admin = setup.pair.adminToken;
    const banned = await signUpMember(a, 'banned_while_down');
    const demoted = await signUpMember(a, 'demoted_while_down');
    const changer = await signUpMember(a, 'password_while_down');
    await apiCall(a.base, 'POST', `/admin/users/${demoted.id}/toggle-admin`, { makeAdmin: true }, admin);
    // B reads (and caches) each row; the banned member watches on B.
    const status = async (path: string, token: string) =>
      (await fetch(`${b.base}/api${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await status('/me', banned.token)).toBe(200);
    expect(await status('/admin/users', demoted.token)).toBe(200);
    expect(await status('/me', changer.token)).toBe(200);
    const watching = await openSocket(eventsUrl(`127.0.0.1:${b.port}`, banned.token), { origin: b.base });

    await killProcess(setup.redis.process);
    await apiCall(a.base, 'POST', `/admin/users/${banned.id}/ban`, { ban: true }, admin);
    await apiCall(a.base, 'POST', `/admin/users/${demoted.id}/toggle-admin`, { makeAdmin: false }, admin);
    await apiCall(
      a.base,
      'POST',
      '/me/password',
      { currentPassword: changer.password, newPassword: 'a-new-Passw0rd!-long' },
      changer.token,
    );

    const backAt = performance.now();
    setup.redis = await startRedis(Number(new URL(setup.redis.url).port));
    const reached = { timeout: REACHED_BOUND_MS, interval: 200 };
    await expect.poll(() => watching.ws.readyState, reached).toBe(WebSocket.CLOSED);
    console.info(
      `Redis back → the banned member's socket on B closed: ${(performance.now() - backAt).toFixed(0)} ms`,
    );
    expect((await watching.closed).code).toBe(SOCKET_CLOSE_CODES.forceDisconnect);
    await expect.poll(() => status('/me', banned.token), reached).toBe(401);
    await expect.poll(() => status('/admin/users', demoted.token), reached).toBe(403);
    await expect.poll(() => status('/me', changer.token), reached).toBe(401);
  }, 90_000);
});

/**
 * A Redis that hangs rather than dies (SIGSTOP: its connections stay open, nothing answers). The
 * commands that requests make (the shared rate limit's count, the login throttle) must not wait
 * for it: each fails after REDIS_COMMAND_TIMEOUT_MS (500 ms) and the request goes through, as
 * when Redis is down.
 */
describe('two instances when Redis hangs', () => {
  /** 4× the command timeout: a request may wait for one or two timed-out commands, never forever. */
  const ANSWER_BOUND_MS = 2_000;
  const setup = twoInstancesOnOwnRedis();

  /** The time `request` took to answer (failing after 10 s: a hang is what this test is about). */
  async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; ms: number }> {
    const startedAt = performance.now();
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - startedAt };
  }

  it('the car list and a login answer within 2 s on both instances, and a car within one instance drives and stops', async () => {
    const local = await addSimCar(setup.pair.b.base, setup.pair.adminToken, 'Local car');
    setup.children.push(local.agent);
    await lineAppears(local.agent, /welcomed as car/);
    const authorization = { authorization: `Bearer ${setup.pair.adminToken}` };
    expect((await timed(`${setup.pair.a.base}/api/cars`, { headers: authorization })).status).toBe(200);

    setup.redis.process.kill('SIGSTOP');
    for (const instance of [setup.pair.a, setup.pair.b]) {
      const list = await timed(`${instance.base}/api/cars`, { headers: authorization });
      expect(list.status).toBe(200);
      expect(list.ms).toBeLessThanOrEqual(ANSWER_BOUND_MS);
      const login = await timed(`${instance.base}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: setup.pair.admin.email,
          password: setup.pair.admin.password,
          recaptchaToken: '',
        }),
      });
      expect(login.status).toBe(200);
      expect(login.ms).toBeLessThanOrEqual(ANSWER_BOUND_MS);
    }

    // Within B: drive and stop as ever, though every fact B publishes times out.
    await driveAndStop(setup.pair.b, local, setup.pair.adminToken);

    // Redis answers again: so do the instances, at their usual speed.
    setup.redis.process.kill('SIGCONT');
    await expect
      .poll(async () => (await timed(`${setup.pair.a.base}/api/cars`, { headers: authorization })).ms, {
        timeout: 10_000,
      })
      .toBeLessThan(ANSWER_BOUND_MS / 4);
  }, 90_000);
});
