#!/usr/bin/env node
/**
 * Measures the CPU of simulated cars streaming video: starts N real car agents (`--drive sim`,
 * camera `sim`) against a minimal car-protocol server on 127.0.0.1 that welcomes them, sends each
 * a `video` target on a local UDP port and keeps them driving in circles, then samples
 * /proc/<pid>/stat (utime + stime) of every agent and its GStreamer child over the interval.
 *
 *   node apps/car/scripts/measure-video-cpu.mjs [--agents 2] [--seconds 20] [--size 640x480] [--framerate 30]
 *
 * Prints % of one core per process and in total, the RTP packets received and the fps the agents
 * report in their telemetry. Everything stays on this machine and stops by itself.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocketServer } from 'ws';
import { agentArgs, CAR_DIR } from './agent-command.mjs';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
    size: { type: 'string', default: '640x480' },
    framerate: { type: 'string', default: '30' },
  },
});
const agents = Number(values.agents);
const seconds = Number(values.seconds);
const [width, height] = values.size.split('x').map(Number);
const framerate = Number(values.framerate);
const CLK_TCK = 100;
const SECRET = 'measure-video-cpu';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime of a process, in clock ticks (undefined when it is gone). */
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function commOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** Child processes: the agent's GStreamer (and tsx's esbuild service, idle). */
function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) found.push(Number(entry));
    } catch {}
  }
  return found;
}

// The server's side of the car protocol, just enough to stream: welcome, video, drive.
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => wss.once('listening', resolve));
const serverPort = wss.address().port;
const sinks = new Map();
const fps = new Map();
wss.on('connection', (socket, request) => {
  const car = new URL(request.url, 'http://x').searchParams.get('car');
  let seq = 0;
  const drive = setInterval(
    () => socket.send(JSON.stringify({ type: 'drive', throttle: 0.4, steer: 0.6, seq: seq++ })),
    100,
  );
  socket.on('close', () => clearInterval(drive));
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.type === 'hello') {
      socket.send(
        JSON.stringify({
          type: 'welcome',
          config: { forwardSpeedPercent: 100, backwardSpeedPercent: 100, trimValue: 0 },
        }),
      );
      socket.send(
        JSON.stringify({ type: 'video', host: '127.0.0.1', port: sinks.get(car).port, codec: 'h264' }),
      );
    } else if (message.type === 'telemetry' && message.fps !== undefined) {
      fps.set(car, message.fps);
    }
  });
});

const dir = mkdtempSync(join(tmpdir(), 'video-cpu-'));
const config = join(dir, 'car.json');
writeFileSync(config, JSON.stringify({ video: { width, height, framerate } }));
const procs = [];
const gstPids = [];
for (let i = 1; i <= agents; i++) {
  const udp = createSocket('udp4');
  const sink = { port: 0, packets: 0, frames: 0, udp };
  udp.on('message', (packet) => {
    if (packet[0] >> 6 !== 2 || (packet[1] & 0x7f) !== 96) return;
    sink.packets++;
    // The marker bit ends a frame (RFC 6184): frames really sent, whatever the telemetry's window.
    if (packet[1] & 0x80) sink.frames++;
  });
  await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
  sink.port = udp.address().port;
  sinks.set(String(i), sink);
  const agent = spawn(
    process.execPath,
    agentArgs({
      server: `http://127.0.0.1:${serverPort}`,
      car: String(i),
      drive: 'sim',
      camera: 'sim',
      config,
    }),
    { cwd: CAR_DIR, env: { ...process.env, CAR_SECRET: SECRET }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  procs.push(agent);
}

try {
  const deadline = Date.now() + 20_000;
  while ([...sinks.values()].some((s) => s.packets === 0)) {
    if (Date.now() > deadline) throw new Error('no RTP from every agent within 20 s');
    await sleep(100);
  }
  await sleep(2_000); // past start-up (tsx compiling, x264 warming up)
  const pids = procs.flatMap((agent) => [
    { pid: agent.pid, name: `node agent ${agent.pid}` },
    ...childrenOf(agent.pid).map((pid) => ({ pid, name: `  ${commOf(pid)} ${pid}` })),
  ]);
  // gst-runner (video/gst-runner.py) runs the pipeline where GStreamer's Python bindings are installed.
  gstPids.push(...pids.filter(({ name }) => /gst-launch|gst-runner/.test(name)).map(({ pid }) => pid));
  const before = pids.map(({ pid }) => cpuTicks(pid));
  const packetsBefore = [...sinks.values()].map((s) => s.packets);
  const framesBefore = [...sinks.values()].map((s) => s.frames);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const after = pids.map(({ pid }) => cpuTicks(pid));
  let total = 0;
  console.info(`${agents} simulated cameras ${width}x${height}@${framerate}, ${elapsed.toFixed(1)} s:`);
  pids.forEach(({ name }, i) => {
    const percent = ((after[i] - before[i]) / CLK_TCK / elapsed) * 100;
    total += percent;
    console.info(`  ${name.padEnd(26)} ${percent.toFixed(1).padStart(5)} % of one core`);
  });
  console.info(`  total                      ${total.toFixed(1).padStart(5)} % of one core`);
  [...sinks.entries()].forEach(([car, sink], i) => {
    const rate = (sink.packets - packetsBefore[i]) / elapsed;
    const frames = (sink.frames - framesBefore[i]) / elapsed;
    console.info(
      `  car ${car}: ${rate.toFixed(0)} RTP packets/s, ${frames.toFixed(1)} frames/s received, telemetry fps ${fps.get(car) ?? '-'}`,
    );
  });
} finally {
  for (const agent of procs) agent.kill('SIGTERM');
  await Promise.all(
    procs.map(
      (agent) =>
        new Promise((resolve) => (agent.exitCode === null ? agent.once('exit', resolve) : resolve())),
    ),
  );
  await sleep(500);
  const left = gstPids.filter((pid) => cpuTicks(pid) !== undefined);
  console.info(
    left.length ? `  GStreamer left running: ${left.join(', ')}` : '  agents stopped, no GStreamer left',
  );
  for (const sink of sinks.values()) sink.udp.close();
  wss.close();
  rmSync(dir, { recursive: true, force: true });
}
