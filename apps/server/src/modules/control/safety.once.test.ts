/**
 * The car's safety bounds, asserted through real processes: a real server process, a real car-agent
 * process driving the simulator, and a driver's control socket holding full throttle. The car must
 * reach neutral within a bound (docs/driving.md "Safety timers") when:
 * - the server process is SIGKILLed (the car's socket closes): 600 ms;
 * - the server process freezes (SIGSTOP: sockets open, nothing sent) — the car's own deadman: 600 ms;
 * - the driver's control socket closes: 250 ms;
 * - the driver goes silent (no message, no pong): CONTROL_LIMITS.controllerSilenceMs is 1.5 s and
 *   the server checks every controllerPingMs (500 ms), so 2.5 s.
 * The same bounds hold for a driver on the drive channel (issue 27: a werift peer drives over the
 * DataChannel, nothing over the socket): the socket's close stops the car though the channel is
 * still open; drives on the channel alone keep a driver whose socket is silent (no pong) heard,
 * and once both fall silent the car stops within 2.5 s; a frozen server leaves it to the deadman.
 * The server's going (killed, frozen) is tried on both car links (issue 42): the car socket alone
 * (`--drive-channel off`) and the socket with the car's drive channel open, which must not keep a
 * car driving once its server is gone.
 * The bounds are literal, generous numbers rather than the constants: raising a timer fails them.
 * Each time is measured from the observable event (the signal sent, the last message sent, the
 * close called) to the agent printing its neutral line, never from a sleep.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { CONTROL_LIMITS } from '@telerace/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestEnvironment, type TestEnvironment } from '../../test/app.js';
import { DriveChannelClient } from '../../test/drive-channel-client.js';
import {
  addSimCar,
  killProcess,
  lineAppears,
  startServerProcess,
  takeCarWithCode,
} from '../../test/process.js';
import { controllerUrl } from '../../test/sockets.js';

const ADMIN = { email: 'safety-admin@telerace.test', password: 'safety-admin-Passw0rd!' };

const BOUNDS_MS = {
  serverKilled: 600,
  serverFrozen: 600,
  controllerClosed: 250,
  controllerSilent: 2_500,
};

/** The car agent's links to the server (issue 42). */
type CarLink = 'socket only' | 'socket + channel';
const CAR_LINKS: CarLink[] = ['socket only', 'socket + channel'];

/** A server process with one car whose real agent is connected, and an admin to drive it. */
interface Rig {
  server: ChildProcess;
  agent: ChildProcess;
  base: string;
  port: number;
  accessToken: string;
  carId: number;
}

/** A driver's control socket holding full throttle, with the time it last sent anything. */
interface Driver {
  socket: WebSocket;
  lastSentAt(): number;
  /** Stops sending (the silent driver): the socket stays open. */
  fallSilent(): void;
}

/** Resolves once the car's telemetry, relayed on the driver's socket, says it moves. */
function carMoves(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; telemetry?: { speed?: number } };
      if (message.type === 'telemetry' && (message.telemetry?.speed ?? 0) > 0.5) resolve();
    });
  });
}

describe('safety bounds of a driven car', () => {
  let environment: TestEnvironment;
  const children: ChildProcess[] = [];
  const sockets: WebSocket[] = [];
  const channels: DriveChannelClient[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment();
  });
  afterEach(async () => {
    for (const channel of channels.splice(0)) await channel.close();
    for (const socket of sockets.splice(0)) socket.terminate();
    for (const child of children.splice(0)) await killProcess(child);
  });
  afterAll(async () => {
    await environment?.dispose();
  });

  /** `carLink`: the agent's drive channel on (waited for until open) or off. */
  async function startRig(carLink: CarLink = 'socket + channel'): Promise<Rig> {
    const { server, port, base, adminToken: accessToken } = await startServerProcess(environment.env, ADMIN);
    children.push(server);
    const channel = carLink === 'socket + channel';
    const { carId, agent } = await addSimCar(base, accessToken, `Safety car ${port}`, [
      '--drive-channel',
      channel ? 'on' : 'off',
    ]);
    children.push(agent);
    const ready = lineAppears(agent, channel ? /drive channel open/ : /welcomed as car/);
    await ready;
    return { server, agent, base, port, accessToken, carId };
  }

  /**
   * Takes the car with a fresh control code and drives at full throttle (repeated every 100 ms, as
   * the web page does) until the car reports that it really moves. `autoPong: false` lets the
   * silent-driver test stop answering the server's pings.
   */
  async function driveFullThrottle(rig: Rig): Promise<Driver> {
    const controlToken = await takeCarWithCode(rig.base, rig.carId, rig.accessToken);
    const socket = new WebSocket(
      controllerUrl(`127.0.0.1:${rig.port}`, rig.carId, rig.accessToken, controlToken),
      { headers: { origin: rig.base }, perMessageDeflate: false, autoPong: false },
    );
    sockets.push(socket);
    await once(socket, 'open');
    const moving = carMoves(socket);
    let lastSentAt = 0;
    const send = () => {
      socket.send(JSON.stringify({ type: 'drive', throttle: 1, steer: 0 }));
      lastSentAt = performance.now();
    };
    send();
    const repeat = setInterval(send, 100);
    socket.once('close', () => clearInterval(repeat));
    await moving;
    return {
      socket,
      lastSentAt: () => lastSentAt,
      fallSilent: () => clearInterval(repeat),
    };
  }

  /**
   * Takes the car and drives at full throttle over the drive channel, a new number every 100 ms
   * as the page repeats it, until the server acknowledged on the channel and the car moves.
   * `autoPong: false`: the socket does not answer the server's pings (it is kept heard by
   * `controller-ping` messages until the channel drives).
   */
  async function driveOverChannel(rig: Rig, { autoPong = true } = {}): Promise<Driver> {
    const controlToken = await takeCarWithCode(rig.base, rig.carId, rig.accessToken);
    const socket = new WebSocket(
      controllerUrl(`127.0.0.1:${rig.port}`, rig.carId, rig.accessToken, controlToken),
      { headers: { origin: rig.base }, perMessageDeflate: false, autoPong },
    );
    sockets.push(socket);
    await once(socket, 'open');
    const moving = carMoves(socket);
    const keepHeard = autoPong
      ? undefined
      : setInterval(() => socket.send(JSON.stringify({ type: 'controller-ping' })), 250);
    const channel = await DriveChannelClient.open(socket);
    channels.push(channel);
    let seq = 0;
    let lastSentAt = 0;
    const send = () => {
      seq += 1;
      channel.drive(1, 0, seq);
      lastSentAt = performance.now();
    };
    send();
    const repeat = setInterval(send, 100);
    socket.once('close', () => clearInterval(repeat));
    await channel.acked(1);
    await moving;
    clearInterval(keepHeard);
    return { socket, lastSentAt: () => lastSentAt, fallSilent: () => clearInterval(repeat) };
  }

  it.each(CAR_LINKS)(
    `the car is neutral within ${BOUNDS_MS.serverKilled} ms of the server process being killed (%s)`,
    async (carLink) => {
      const rig = await startRig(carLink);
      await driveFullThrottle(rig);

      const neutral = lineAppears(rig.agent, /neutral \(/);
      const killedAt = performance.now();
      rig.server.kill('SIGKILL');
      const { line, at } = await neutral;

      console.info(`server SIGKILL → car neutral: ${(at - killedAt).toFixed(1)} ms (${line.trim()})`);
      expect(at - killedAt).toBeLessThanOrEqual(BOUNDS_MS.serverKilled);
      expect(line).toMatch(/link closed/);
      expect(rig.agent.exitCode).toBeNull(); // the agent survives the server and will reconnect
    },
    90_000,
  );

  it.each(CAR_LINKS)(
    `the car's deadman puts it in neutral within ${BOUNDS_MS.serverFrozen} ms of the server freezing (%s)`,
    async (carLink) => {
      const rig = await startRig(carLink);
      await driveFullThrottle(rig);

      const neutral = lineAppears(rig.agent, /neutral \(/);
      const frozenAt = performance.now();
      // Sockets stay open but nothing arrives: only the car's own timer can stop it.
      rig.server.kill('SIGSTOP');
      const { line, at } = await neutral;

      console.info(`server SIGSTOP → car neutral: ${(at - frozenAt).toFixed(1)} ms (${line.trim()})`);
      expect(at - frozenAt).toBeLessThanOrEqual(BOUNDS_MS.serverFrozen);
      expect(line).toMatch(/deadman/);
    },
    90_000,
  );

  it(`the car is neutral within ${BOUNDS_MS.controllerClosed} ms of the driver's socket closing and within ${BOUNDS_MS.controllerSilent} ms of the driver falling silent, over the socket and over the drive channel (there also within ${BOUNDS_MS.serverFrozen} ms of the server freezing)`, async () => {
    const rig = await startRig();

    const closing = await driveFullThrottle(rig);
    const afterClose = lineAppears(rig.agent, /neutral \(/);
    const closedAt = performance.now();
    closing.fallSilent();
    closing.socket.close(1000, 'tab closed');
    const closed = await afterClose;
    console.info(
      `controller close → car neutral: ${(closed.at - closedAt).toFixed(1)} ms (${closed.line.trim()})`,
    );
    expect(closed.at - closedAt).toBeLessThanOrEqual(BOUNDS_MS.controllerClosed);
    expect(closed.line).toMatch(/stop from the server/);

    const silent = await driveFullThrottle(rig);
    const afterSilence = lineAppears(rig.agent, /neutral \(/);
    silent.fallSilent();
    const silentSince = silent.lastSentAt();
    const stopped = await afterSilence;
    console.info(
      `controller silent → car neutral: ${(stopped.at - silentSince).toFixed(1)} ms (${stopped.line.trim()})`,
    );
    expect(stopped.at - silentSince).toBeLessThanOrEqual(BOUNDS_MS.controllerSilent);
    expect(stopped.line).toMatch(/stop from the server/);

    // The same driver on the drive channel, on the same car and server.
    const channelClosing = await driveOverChannel(rig);
    const afterChannelClose = lineAppears(rig.agent, /neutral \(/);
    const channelClosedAt = performance.now();
    // The channel stays open on this side: the socket's close is what ends driving.
    channelClosing.socket.close(1000, 'tab closed');
    const channelClosed = await afterChannelClose;
    channelClosing.fallSilent();
    console.info(
      `channel driver's socket close → car neutral: ${(channelClosed.at - channelClosedAt).toFixed(1)} ms (${channelClosed.line.trim()})`,
    );
    expect(channelClosed.at - channelClosedAt).toBeLessThanOrEqual(BOUNDS_MS.controllerClosed);
    expect(channelClosed.line).toMatch(/stop from the server/);

    const channelSilent = await driveOverChannel(rig, { autoPong: false });
    let neutralSeen = false;
    const afterChannelSilence = lineAppears(rig.agent, /neutral \(/).then((found) => {
      neutralSeen = true;
      return found;
    });
    // Past the silence limit and its check, a socket heard only through its channel stays.
    await new Promise((resolve) =>
      setTimeout(resolve, CONTROL_LIMITS.controllerSilenceMs + 2 * CONTROL_LIMITS.controllerPingMs),
    );
    expect(neutralSeen).toBe(false);
    expect(channelSilent.socket.readyState).toBe(WebSocket.OPEN);
    channelSilent.fallSilent();
    const channelSilentSince = channelSilent.lastSentAt();
    const channelStopped = await afterChannelSilence;
    console.info(
      `channel driver silent on both paths → car neutral: ${(channelStopped.at - channelSilentSince).toFixed(1)} ms (${channelStopped.line.trim()})`,
    );
    expect(channelStopped.at - channelSilentSince).toBeLessThanOrEqual(BOUNDS_MS.controllerSilent);
    expect(channelStopped.line).toMatch(/stop from the server/);

    await driveOverChannel(rig);
    const afterFreeze = lineAppears(rig.agent, /neutral \(/);
    const frozenAt = performance.now();
    rig.server.kill('SIGSTOP');
    const frozen = await afterFreeze;
    console.info(
      `server SIGSTOP, driven over the channel → car neutral: ${(frozen.at - frozenAt).toFixed(1)} ms (${frozen.line.trim()})`,
    );
    expect(frozen.at - frozenAt).toBeLessThanOrEqual(BOUNDS_MS.serverFrozen);
    expect(frozen.line).toMatch(/deadman/);
  }, 90_000);
});
