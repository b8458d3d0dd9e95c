/**
 * The agent against a local WebSocket server that plays the server's side of the car protocol:
 * handshake, drive and heartbeat, silence, a killed server, reconnection, refused secret.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import {
  CAR_PROTOCOL_VERSION,
  CarAgentMessage,
  DEFAULT_CAR_CONFIG,
  type ServerCarMessage,
} from '@telerace/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { agentArgs, CAR_DIR } from '../scripts/agent-command.mjs';
import { CarAgent } from './agent.js';
import type { DriveBackend } from './drive/backend.js';
import { SimBackend } from './drive/sim.js';
import { TOO_OLD_RETRY_MS } from './link.js';
import { resolveSettings } from './settings.js';
import { SimCar } from './sim/sim-car.js';
import { RUNNER_NAME } from './video/encoder-control.js';
import { VideoStreamer } from './video/streamer.js';
import { alive, childrenOf, expectSilence, rtpArrives, TEST_SRTP, udpSink } from './video/testing.js';

const SECRET = 'car-secret-for-tests';

/** The simulator backend, remembering when it was last put in neutral. */
class ObservedSim extends SimBackend {
  lastNeutralAt = 0;
  override neutral(): void {
    super.neutral();
    this.lastNeutralAt = performance.now();
  }
  get isNeutral(): boolean {
    const { throttle, steer } = this.car.state;
    return throttle === 0 && steer === 0;
  }
}

interface FakeServer {
  wss: WebSocketServer;
  port: number;
  received: CarAgentMessage[];
  sockets: WebSocket[];
  upgrades: { authorization: string | undefined; url: string | undefined }[];
  send(message: ServerCarMessage | Record<string, unknown> | string): void;
  /** Kills the server: every socket terminated, the listener closed. */
  kill(): Promise<void>;
}

const welcome: ServerCarMessage = { type: 'welcome', config: DEFAULT_CAR_CONFIG };

async function startServer(port = 0, answer: ServerCarMessage = welcome): Promise<FakeServer> {
  const received: CarAgentMessage[] = [];
  const sockets: WebSocket[] = [];
  const upgrades: FakeServer['upgrades'] = [];
  const wss = new WebSocketServer({
    port,
    verifyClient: (info, done) => {
      upgrades.push({ authorization: info.req.headers.authorization, url: info.req.url });
      if (info.req.headers.authorization === `Bearer ${SECRET}`) done(true);
      else done(false, 401, 'Unauthorized');
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data) => {
      const message = CarAgentMessage.parse(JSON.parse(data.toString()));
      received.push(message);
      if (message.type === 'hello') socket.send(JSON.stringify(answer));
    });
  });
  return {
    wss,
    port: (wss.address() as AddressInfo).port,
    received,
    sockets,
    upgrades,
    send(message) {
      const text = typeof message === 'string' ? message : JSON.stringify(message);
      for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(text);
    },
    async kill() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startAgent(
  port: number,
  secret = SECRET,
  options: { camera?: boolean; assist?: boolean } = {},
) {
  const backend = new ObservedSim(new SimCar(undefined, undefined, { assist: options.assist ?? false }));
  backend.car.start();
  const log: string[] = [];
  const exits: number[] = [];
  const settings = resolveSettings({ server: `http://127.0.0.1:${port}`, car: '5', secret });
  // The simulated car's camera, small to keep the tests light.
  const video = options.camera
    ? new VideoStreamer({
        source: 'sim',
        getState: () => backend.car.state,
        track: backend.car.track,
        width: 320,
        height: 240,
        log: (line) => log.push(line),
      })
    : undefined;
  const agent = new CarAgent(settings, {
    backend,
    log: (line) => log.push(line),
    exit: (code) => exits.push(code),
    ...(video ? { video } : {}),
  });
  agent.start();
  cleanups.push(() => agent.stop());
  return { agent, backend, log, exits, video };
}

/**
 * Drives like the server does: the command now, then repeated every 100 ms. `stop()` ends the
 * repetition and returns when the last drive was sent (where the car's silence starts).
 */
/** The server numbers its commands in one rising sequence per socket: the car ignores older ones. */
let nextSeq = 1_000;

function heartbeat(server: FakeServer, throttle: number, steer: number) {
  let lastSentAt = 0;
  const send = () => {
    server.send({ type: 'drive', throttle, steer, seq: nextSeq++ });
    lastSentAt = performance.now();
  };
  send();
  const timer = setInterval(send, 100);
  const stop = () => {
    clearInterval(timer);
    return lastSentAt;
  };
  cleanups.push(() => {
    stop();
  });
  return stop;
}

/**
 * Safety bounds, asserted (docs/driving.md "Safety timers"): the deadman is 500 ms, so the car is
 * neutral between 450 ms (never early) and 600 ms after the last drive; a closed socket and a `stop`
 * are neutral at once, 200 ms being a generous bound on a loaded machine.
 */
const DEADMAN_BOUNDS_MS = { min: 450, max: 600 };
const IMMEDIATE_BOUND_MS = 200;

const welcomed = (server: FakeServer, count = 1) =>
  vi.waitFor(() => expect(server.received.filter((m) => m.type === 'hello')).toHaveLength(count), {
    timeout: 3000,
  });

describe('car agent ↔ server', () => {
  it('says hello with the secret, gets welcome, drives the simulator and sends telemetry', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { agent, backend } = await startAgent(server.port);
    expect(backend.isNeutral).toBe(true);

    await welcomed(server);
    expect(server.upgrades[0]).toEqual({
      authorization: `Bearer ${SECRET}`,
      url: '/rcsocket?type=car&car=5',
    });
    expect(server.received[0]).toEqual({
      type: 'hello',
      protocolVersion: CAR_PROTOCOL_VERSION,
      agentVersion: '0.1.0',
      capabilities: { passes: true },
    });
    await vi.waitFor(() => expect(agent.link.isWelcomed).toBe(true));

    heartbeat(server, 1, 0);
    await vi.waitFor(() => expect(backend.car.state.speed).toBeGreaterThan(1), { timeout: 3000 });
    await vi.waitFor(() => {
      const telemetry = server.received.filter((m) => m.type === 'telemetry');
      expect(telemetry.at(-1)).toMatchObject({ rssi: -45, battery: expect.any(Number) });
      expect((telemetry.at(-1) as { speed: number }).speed).toBeGreaterThan(0);
    });
  });

  it('says in its hello that it reports no crossings when its drive does not know the finish line', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    // A hardware drive (PCA9685, pigpio): it drives, and knows nothing of a finish line.
    const backend: DriveBackend = { apply() {}, neutral() {}, close: async () => {} };
    const settings = resolveSettings({ server: `http://127.0.0.1:${server.port}`, car: '5', secret: SECRET });
    const agent = new CarAgent(settings, { backend, log: () => {}, exit: () => {} });
    agent.start();
    cleanups.push(() => agent.stop());
    await welcomed(server);
    expect(server.received[0]).toMatchObject({ type: 'hello', capabilities: { passes: false } });
  });

  it('reports each forward pass of the finish line to the server as a pass', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { agent, log } = await startAgent(server.port, SECRET, { assist: true });
    await vi.waitFor(() => expect(agent.link.isWelcomed).toBe(true), { timeout: 3000 });
    const before = Date.now();

    // The simulated car starts 1 m behind the line: full throttle takes it over in under a second.
    heartbeat(server, 1, 0);
    await vi.waitFor(() => expect(server.received.some((m) => m.type === 'pass')).toBe(true), {
      timeout: 3000,
    });
    const passes = server.received.filter((m) => m.type === 'pass');
    expect(passes).toHaveLength(1);
    expect((passes[0] as { at: number }).at).toBeGreaterThanOrEqual(before);
    expect((passes[0] as { at: number }).at).toBeLessThanOrEqual(Date.now());
    // Logged with the time it carries: what the soak run counts a car's crossings by.
    expect(log.filter((line) => line.startsWith('pass at'))).toEqual([
      `pass at ${(passes[0] as { at: number }).at} sent`,
    ]);
  });

  it('goes neutral when the server falls silent (deadman)', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { backend, log } = await startAgent(server.port);
    await welcomed(server);
    const stop = heartbeat(server, 0.8, 0.3);
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.8));
    const silentSince = stop();
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true), { timeout: 2000 });
    const elapsed = backend.lastNeutralAt - silentSince;
    console.info(`deadman: neutral ${elapsed.toFixed(1)} ms after the last heartbeat`);
    expect(elapsed).toBeGreaterThanOrEqual(DEADMAN_BOUNDS_MS.min);
    expect(elapsed).toBeLessThanOrEqual(DEADMAN_BOUNDS_MS.max);
    expect(log.some((line) => line.includes('deadman'))).toBe(true);
  });

  it('goes neutral on its deadman while the server still answers its link pings and sends other messages (issue 42)', async () => {
    // A server whose drives stopped coming (the driver's instance cut off) but that answers pings:
    // here a pong every 100 ms, far more often than the agent's own pings would bring.
    const server = await startServer(0, { ...welcome, driveChannel: false });
    cleanups.push(() => server.kill());
    const { backend } = await startAgent(server.port);
    await welcomed(server);
    const stop = heartbeat(server, 0.8, 0.3);
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.8));
    // Pongs, and messages that are not commands (a drive channel's answer, a config), keep coming.
    const pongs = setInterval(() => {
      server.send({ type: 'link-pong', t: Date.now() });
      server.send({ type: 'config', settings: DEFAULT_CAR_CONFIG });
    }, 100);
    cleanups.push(() => clearInterval(pongs));
    const silentSince = stop();
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true), { timeout: 2000 });
    expect(backend.lastNeutralAt - silentSince).toBeLessThanOrEqual(DEADMAN_BOUNDS_MS.max);
  });

  it('goes neutral on its deadman while late copies of older commands keep coming (issue 42)', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { backend } = await startAgent(server.port);
    await welcomed(server);
    const stop = heartbeat(server, 0.8, 0.3);
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.8));
    // The other path's copies, late: older than the last command applied.
    const late = setInterval(() => server.send({ type: 'drive', throttle: 0.8, steer: 0.3, seq: 1 }), 100);
    cleanups.push(() => clearInterval(late));
    const silentSince = stop();
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true), { timeout: 2000 });
    expect(backend.lastNeutralAt - silentSince).toBeLessThanOrEqual(DEADMAN_BOUNDS_MS.max);
  });

  it('goes neutral when the server is killed while driving, then reconnects when it is back', async () => {
    const server = await startServer();
    const { backend, log } = await startAgent(server.port);
    await welcomed(server);
    const stop = heartbeat(server, 1, -0.5);
    await vi.waitFor(() => expect(backend.car.state.throttle).toBe(1));

    const killedAt = performance.now();
    await server.kill();
    stop();
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true), { timeout: 2000 });
    const elapsed = backend.lastNeutralAt - killedAt;
    console.info(`kill → neutral: ${elapsed.toFixed(1)} ms`);
    expect(elapsed).toBeLessThanOrEqual(IMMEDIATE_BOUND_MS);
    expect(log.some((line) => line.includes('neutral (link closed)'))).toBe(true);

    const revived = await startServer(server.port);
    cleanups.push(() => revived.kill());
    await welcomed(revived);
    expect(revived.upgrades[0]?.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('answers pings, drops invalid messages, applies config and stop', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { agent, backend } = await startAgent(server.port);
    await welcomed(server);
    await vi.waitFor(() => expect(agent.link.isWelcomed).toBe(true));

    // The server's keepalive is the WebSocket ping: the agent answers it.
    const pong = new Promise<void>((resolve) => server.sockets[0]?.once('pong', () => resolve()));
    server.sockets[0]?.ping();
    await pong;

    server.send('not json');
    server.send({ type: 'drive', throttle: 5, steer: 0, seq: 1 });
    server.send({ type: 'launch-missiles' });
    await vi.waitFor(() => expect(agent.link.dropped).toBe(3));
    expect(backend.isNeutral).toBe(true);

    server.send({
      type: 'config',
      settings: { forwardSpeedPercent: 50, backwardSpeedPercent: 20, trimValue: 10 },
    });
    heartbeat(server, 1, 0);
    await vi.waitFor(() => {
      expect(backend.car.state.throttle).toBeCloseTo(0.5);
      expect(backend.car.state.steer).toBeCloseTo(0.1);
    });
  });

  it('stop from the server is an immediate neutral', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { backend } = await startAgent(server.port);
    await welcomed(server);
    server.send({ type: 'drive', throttle: 0.6, steer: 0, seq: 0 });
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.6));
    const stoppedAt = performance.now();
    server.send({ type: 'stop' });
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true));
    expect(backend.lastNeutralAt - stoppedAt).toBeLessThanOrEqual(IMMEDIATE_BOUND_MS);
  });

  it('pings its link on the socket of a server that answers, and reports its link in the telemetry (issue 42)', async () => {
    const server = await startServer(0, { ...welcome, driveChannel: false });
    cleanups.push(() => server.kill());
    server.wss.on('connection', (socket) =>
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; t?: number };
        if (message.type === 'link-ping') socket.send(JSON.stringify({ type: 'link-pong', t: message.t }));
      }),
    );
    await startAgent(server.port);
    await welcomed(server);
    await vi.waitFor(
      () => {
        const telemetry = server.received.filter((m) => m.type === 'telemetry').at(-1) as { link?: unknown };
        expect(telemetry?.link).toEqual({ channel: false, rttMs: expect.any(Number), deadmanTrips: 0 });
      },
      { timeout: 5_000 },
    );
    expect(server.received.some((m) => m.type === 'rtc_offer')).toBe(false);
  });

  it('sends an older server (no word of the drive channel) neither link pings nor link figures', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    await startAgent(server.port);
    await welcomed(server);
    await vi.waitFor(
      () => expect(server.received.filter((m) => m.type === 'telemetry').length).toBeGreaterThan(6),
      {
        timeout: 5_000,
      },
    );
    expect(server.received.some((m) => m.type === 'link-ping' || m.type === 'rtc_offer')).toBe(false);
    expect(server.received.some((m) => m.type === 'telemetry' && 'link' in m)).toBe(false);
  });

  it('applies only the newest command: a drive that comes after a newer stop is ignored', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { backend } = await startAgent(server.port);
    await welcomed(server);
    server.send({ type: 'drive', throttle: 0.6, steer: 0, seq: 7 });
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.6));
    server.send({ type: 'stop', seq: 9 });
    // Drive 8 took the slower path (the socket, behind a lost segment): older than the stop.
    server.send({ type: 'drive', throttle: 0.8, steer: 0, seq: 8 });
    server.send({ type: 'drive', throttle: 0.7, steer: 0, seq: 9 });
    await vi.waitFor(() => expect(backend.isNeutral).toBe(true));
    server.send({ type: 'drive', throttle: 0.5, steer: 0, seq: 10 });
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.5));
  });

  it('a simulated car exits with 75 on reboot and 0 on shutdown', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const first = await startAgent(server.port);
    await welcomed(server);
    server.send({ type: 'command', command: 'reboot' });
    await vi.waitFor(() => expect(first.exits).toEqual([75]));
    expect(first.backend.isNeutral).toBe(true);

    const second = await startAgent(server.port);
    await welcomed(server, 2);
    server.send({ type: 'command', command: 'shutdown' });
    await vi.waitFor(() => expect(second.exits).toEqual([0]));
  });

  it('logs a refused secret without printing it, and keeps the car neutral', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { backend, log } = await startAgent(server.port, 'wrong-secret');
    await vi.waitFor(() => expect(log.some((line) => line.includes('car secret refused'))).toBe(true));
    await vi.waitFor(() => expect(log.some((line) => line.includes('reconnecting in 8000 ms'))).toBe(true));
    expect(server.received).toEqual([]);
    expect(backend.isNeutral).toBe(true);
    expect(log.join('\n')).not.toContain('wrong-secret');
  });

  it('a server that finds the agent too old: one clear line, then a long wait before the next attempt', async () => {
    const server = await startServer(0, {
      type: 'incompatible',
      reason: 'client_too_old',
      supported: { min: CAR_PROTOCOL_VERSION + 1, max: CAR_PROTOCOL_VERSION + 2 },
    });
    cleanups.push(() => server.kill());
    const { agent, log } = await startAgent(server.port);
    await vi.waitFor(() =>
      expect(log.some((line) => line.includes('too old') && line.includes('update the car agent'))).toBe(
        true,
      ),
    );
    await vi.waitFor(() =>
      expect(log.some((line) => line.includes(`reconnecting in ${TOO_OLD_RETRY_MS} ms`))).toBe(true),
    );
    expect(agent.link.isWelcomed).toBe(false);
    // No tight loop: the one refused connection is all the server saw.
    expect(server.upgrades).toHaveLength(1);
  });

  it('a server older than the agent: one clear line, retried slowly', async () => {
    const server = await startServer(0, {
      type: 'incompatible',
      reason: 'server_too_old',
      supported: { min: CAR_PROTOCOL_VERSION - 1, max: CAR_PROTOCOL_VERSION - 1 },
    });
    cleanups.push(() => server.kill());
    const { agent, log } = await startAgent(server.port);
    await vi.waitFor(() =>
      expect(
        log.some((line) => line.includes('the server is older') && line.includes('update the server')),
      ).toBe(true),
    );
    await vi.waitFor(() => expect(log.some((line) => line.includes('reconnecting in 8000 ms'))).toBe(true));
    expect(agent.link.isWelcomed).toBe(false);
  });
});

describe('car agent video', () => {
  it('streams the simulated camera to the `video` target, follows a new target, stops when the link closes', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const first = await udpSink();
    const second = await udpSink();
    cleanups.push(first.close, second.close);
    const { video, log } = await startAgent(server.port, SECRET, { camera: true });
    if (!video) throw new Error('no camera');
    await welcomed(server);

    server.send({ type: 'video', host: '127.0.0.1', port: first.port, codec: 'h264', srtp: TEST_SRTP });
    await rtpArrives(first);
    const firstPid = video.pid as number;
    // The camera's frame rate goes out in the telemetry.
    await vi.waitFor(
      () => {
        const telemetry = server.received.filter((m) => m.type === 'telemetry').at(-1);
        expect((telemetry as { fps?: number } | undefined)?.fps).toBeGreaterThan(0);
      },
      { timeout: 5_000 },
    );

    // The mountpoint was re-created (Janus restarted): the packets move to the new port.
    server.send({ type: 'video', host: '127.0.0.1', port: second.port, codec: 'h264', srtp: TEST_SRTP });
    await rtpArrives(second);
    expect(alive(firstPid)).toBe(false);
    await expectSilence(first, 500);

    // Nobody drives the car any more: the camera stops, and starts again with the next driver.
    const stoppedPid = video.pid as number;
    server.send({ type: 'video-stop' });
    await vi.waitFor(() => expect(alive(stoppedPid)).toBe(false), { timeout: 5_000 });
    expect(video.target).toBeUndefined();
    server.send({ type: 'video', host: '127.0.0.1', port: second.port, codec: 'h264', srtp: TEST_SRTP });
    await vi.waitFor(() => expect(video.pid).toBeDefined(), { timeout: 5_000 });

    const secondPid = video.pid as number;
    await server.kill();
    await vi.waitFor(() => expect(alive(secondPid)).toBe(false), { timeout: 5_000 });
    expect(video.target).toBeUndefined();
    expect(log.filter((line) => line.includes('restarting'))).toEqual([]);
  });

  it('ends the camera when the agent stops', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const sink = await udpSink();
    cleanups.push(sink.close);
    const { agent, video } = await startAgent(server.port, SECRET, { camera: true });
    await welcomed(server);
    server.send({ type: 'video', host: '127.0.0.1', port: sink.port, codec: 'h264', srtp: TEST_SRTP });
    await rtpArrives(sink, { moreThan: 0 });
    const pid = video?.pid as number;
    await agent.stop();
    expect(alive(pid)).toBe(false);
  });

  it('a killed agent leaves no camera streaming: GStreamer dies with it', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const sink = await udpSink();
    cleanups.push(sink.close);
    // The real agent as its own process, with GStreamer's test camera (fed by no pipe from the
    // agent, like the Pi's camera): what a crash or an out-of-memory kill leaves behind.
    const agent = spawn(
      process.execPath,
      agentArgs({ server: `http://127.0.0.1:${server.port}`, car: '5', drive: 'sim', camera: 'test' }),
      { cwd: CAR_DIR, env: { PATH: process.env.PATH ?? '', CAR_SECRET: SECRET }, stdio: 'ignore' },
    );
    cleanups.push(() => {
      agent.kill('SIGKILL');
    });
    await vi.waitFor(() => expect(server.received.some((m) => m.type === 'hello')).toBe(true), {
      timeout: 20_000,
      interval: 100,
    });
    server.send({ type: 'video', host: '127.0.0.1', port: sink.port, codec: 'h264', srtp: TEST_SRTP });
    await rtpArrives(sink, { timeout: 15_000 });
    // The runner (GStreamer's Python bindings are installed for the tests: scripts/lib/system.mjs).
    const [gst] = childrenOf(agent.pid as number, RUNNER_NAME);
    if (gst === undefined) throw new Error('no GStreamer under the agent');

    agent.kill('SIGKILL');
    await vi.waitFor(() => expect(alive(gst)).toBe(false), { timeout: 5_000, interval: 50 });
    await expectSilence(sink, 300);
  }, 40_000);

  it('without a camera a `video` message is logged, and driving goes on', async () => {
    const server = await startServer();
    cleanups.push(() => server.kill());
    const { agent, backend, log } = await startAgent(server.port);
    await welcomed(server);
    server.send({ type: 'video', host: '127.0.0.1', port: 5004, codec: 'h264', srtp: TEST_SRTP });
    await vi.waitFor(() => expect(log).toContain('video: camera disabled, not streaming to 127.0.0.1:5004'));
    expect(agent.link.dropped).toBe(0);
    heartbeat(server, 0.5, 0);
    await vi.waitFor(() => expect(backend.car.state.throttle).toBeCloseTo(0.5));
  });
});
