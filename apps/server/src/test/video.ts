/**
 * Test support for live video: an app running its own Janus (VIDEO=auto), listening on a real
 * port, with an admin client of that Janus to look at its mountpoints and viewers; and Janus run
 * as its own service, the way deploy/systemd/janus.service runs it on the files
 * `npm run janus:config` writes.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { expect, vi } from 'vitest';
import { writeJanusServiceConfig } from '../../scripts/janus-config.js';
import { spawnTiedToServer } from '../child-process.js';
import { freeLoopbackPort } from '../free-port.js';
import { JanusClient, STREAMING_PLUGIN } from '../modules/video/janus-client.js';
import { startTestApp } from './app.js';
import { listen, openSocket, originOf, type TestSocket } from './sockets.js';

const JANUS_UNIT = new URL('../../../../deploy/systemd/janus.service', import.meta.url);
/** The folder the unit reads its configuration from, replaced by the test's own. */
const UNIT_CONFIG_FOLDER = '/etc/telerace/janus';

/** Resolves once the server's Janus answers; give its `beforeAll` a minute on a slow machine. */
export async function startOwnJanusTestApp(extraEnv: Record<string, string> = {}) {
  const testApp = await startTestApp({ ...extraEnv, VIDEO: 'auto' });
  await testApp.app.videoStarted();
  const host = await listen(testApp.app);
  const supervisor = testApp.app.video.janus.supervisor;
  if (!supervisor) throw new Error('the server did not start its Janus');
  return { testApp, host, janusAdmin: new JanusClient(supervisor.httpUrl, supervisor.adminKey) };
}

/** A page's socket to the server's `/janus` proxy, from the app's own origin unless told. */
export function openJanusSocket(
  app: FastifyInstance,
  host: string,
  token: string,
  origin = originOf(app).origin,
): Promise<TestSocket> {
  return openSocket(`ws://${host}/janus?token=${encodeURIComponent(token)}`, { origin }, 'janus-protocol');
}

/** Janus's answer to the request with this transaction (its acks skipped). */
export function janusAnswer(janus: TestSocket, transaction: string) {
  return janus.next((m) => m.transaction === transaction && m.janus !== 'ack', 10_000);
}

/** A Janus session with one streaming-plugin handle on the socket, as a page's player opens them. */
export async function streamingHandle(janus: TestSocket): Promise<{ session: number; handle: number }> {
  const created = randomUUID();
  janus.send({ janus: 'create', transaction: created });
  const session = ((await janusAnswer(janus, created)).data as { id: number }).id;
  const attached = randomUUID();
  janus.send({ janus: 'attach', plugin: STREAMING_PLUGIN, session_id: session, transaction: attached });
  return { session, handle: ((await janusAnswer(janus, attached)).data as { id: number }).id };
}

/** Janus as its own service, on the files `npm run janus:config` wrote; see `startJanusService`. */
export interface JanusService {
  /** The settings the servers use to reach it: JANUS_URL, JANUS_API_URL, JANUS_ADMIN_KEY, JANUS_RTP_PORTS, … */
  readonly env: Record<string, string>;
  /** Its configuration folder. */
  dir: string;
  httpUrl: string;
  readonly adminKey: string;
  rtpPorts: readonly [number, number];
  /** A client with the admin key. */
  readonly admin: JanusClient;
  /** The running process's pid, if any. */
  readonly pid: number | undefined;
  /** Starts it (again, on the same files) and resolves once it answers. */
  start(): Promise<void>;
  /** SIGKILL, resolved once it has exited (its own SIGTERM handling can hang). */
  kill(): Promise<void>;
  /** Writes its files again with these settings changed (read at its next start). */
  reconfigure(changes: Record<string, string>): Promise<void>;
  /** Kills it and removes its folder. */
  dispose(): Promise<void>;
}

/** The unit's command line, for the configuration in `dir`. */
function unitCommand(dir: string): string[] {
  const execStart = /^ExecStart=(.+)$/m.exec(readFileSync(JANUS_UNIT, 'utf8'))?.[1];
  if (!execStart) throw new Error('deploy/systemd/janus.service has no ExecStart');
  return execStart.split(/\s+/).map((arg) => arg.replaceAll(UNIT_CONFIG_FOLDER, dir));
}

/** Resolves once the Janus at `httpUrl` answers `/info`; rejects if `child` exits first. */
async function janusAnswers(httpUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  let exited = false;
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        exited = true;
        return;
      }
      // Refused while not listening yet: asked again.
      const body = (await (
        await fetch(`${httpUrl}/info`, { signal: AbortSignal.timeout(2_000) })
      ).json()) as { janus?: string };
      expect(body.janus, `janus did not answer ${httpUrl}/info:\n${output()}`).toBe('server_info');
    },
    { timeout: 20_000, interval: 100 },
  );
  if (exited) throw new Error(`janus exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
}

/**
 * Janus run as deploy/systemd/janus.service runs it (its ExecStart, with a temporary folder for
 * /etc/telerace/janus) on the files `npm run janus:config` writes from these settings: free
 * loopback ports, a fresh admin key and a random 1000-port RTP window, plus `extraEnv`
 * (JANUS_PUBLIC_IP…). Started before it resolves; `kill` and `start` stop it and start it again.
 */
export async function startJanusService(extraEnv: Record<string, string> = {}): Promise<JanusService> {
  const dir = await mkdtemp(join(tmpdir(), 'telerace-janus-service-'));
  const wsPort = await freeLoopbackPort();
  let httpPort = await freeLoopbackPort();
  while (httpPort === wsPort) httpPort = await freeLoopbackPort();
  const low = 20_000 + 1_000 * randomInt(0, 40);
  const rtpPorts = [low, low + 999] as const;
  const adminKey = randomBytes(24).toString('base64url');
  const httpUrl = `http://127.0.0.1:${httpPort}/janus`;
  let env: Record<string, string> = {
    JANUS_URL: `ws://127.0.0.1:${wsPort}`,
    JANUS_API_URL: httpUrl,
    JANUS_ADMIN_KEY: adminKey,
    JANUS_RTP_PORTS: `${rtpPorts[0]}-${rtpPorts[1]}`,
    ...extraEnv,
  };
  await writeJanusServiceConfig(env, ['--out', dir]);
  const [command = '', ...args] = unitCommand(dir);
  let child: ChildProcess | undefined;

  const service: JanusService = {
    get env() {
      return env;
    },
    dir,
    httpUrl,
    get adminKey() {
      return env.JANUS_ADMIN_KEY ?? '';
    },
    rtpPorts,
    get admin() {
      return new JanusClient(httpUrl, env.JANUS_ADMIN_KEY ?? null);
    },
    get pid() {
      return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    async start() {
      let output = '';
      // Tied to the test process: a crashed run leaves no Janus behind.
      const started = spawnTiedToServer(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }, 'KILL');
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-8_000);
      };
      started.stdout?.on('data', keep);
      started.stderr?.on('data', keep);
      child = started;
      await janusAnswers(httpUrl, started, () => output);
    },
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    },
    async reconfigure(changes) {
      env = { ...env, ...changes };
      await writeJanusServiceConfig(env, ['--out', dir]);
    },
    async dispose() {
      await service.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await service.start();
  } catch (error) {
    await service.dispose();
    throw error;
  }
  return service;
}
