/**
 * Test support for tests that run real processes: the server as `npm start` runs it when its
 * build is fresh, else as `npm run dev` does (tsx, `source` condition), free ports, waiting for
 * an HTTP status, and what a test does to such a server over HTTP (log in, add a car with its
 * sim agent, take a car with a code).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';
import WebSocket from 'ws';
import { freeLoopbackPort as freePortFor } from '../free-port.js';
import { defaultAgentCommand } from '../modules/cars/sim-cars.js';
import { seedMigratedDatabase } from './app.js';
import { controllerUrl } from './sockets.js';

export const SERVER_DIR = new URL('../..', import.meta.url);
const REPO = new URL('../../../..', import.meta.url);
const PROTOCOL_SOURCES = new URL('packages/protocol/src', REPO);

/** The newest modification time of the files under `dir`. */
function newestFileIn(dir: URL): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  return newest;
}

/**
 * The path of a built bundle when it is newer than every source it is built from, else null.
 * `test:all` builds before it tests, so its server and car processes start from the bundles
 * `npm start` runs (a server ready in 2.2 s against 3.7 s through tsx, idle, for ~40 starts a
 * run); a file edited since the last build sends the process back to tsx, with the edit.
 */
function freshBundle(bundle: URL, sources: URL[]): string | null {
  if (!existsSync(bundle)) return null;
  const built = statSync(bundle).mtimeMs;
  return sources.every((dir) => newestFileIn(dir) <= built) ? fileURLToPath(bundle) : null;
}

/** How to start the server: its bundle if fresh, else its source through tsx (`npm run dev`'s way). */
function serverArgs(): string[] {
  const bundle = freshBundle(new URL('dist/main.js', SERVER_DIR), [
    new URL('src', SERVER_DIR),
    PROTOCOL_SOURCES,
  ]);
  return bundle ? [bundle] : ['--conditions=source', '--import', 'tsx', 'src/main.ts'];
}

/** How to start a car agent: its bundle if fresh, else its source through tsx. */
function agentCommand(): { command: string; args: string[] } {
  const bundle = freshBundle(new URL('apps/car/dist/main.js', REPO), [
    new URL('apps/car/src', REPO),
    PROTOCOL_SOURCES,
  ]);
  return bundle ? { command: process.execPath, args: [bundle] } : defaultAgentCommand();
}

export function startServer(
  env: Record<string, string>,
): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, serverArgs(), {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return Object.assign(child, { output: captureOutput(child) });
}

/** Keeps what a child process writes from now on; the function returns it so far. */
export function captureOutput(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return () => ({ stdout, stderr });
}

export { freePortFor as freePort };

export function waitForStatus(url: string, status: number, timeoutMs: number): Promise<Response> {
  // A refused connection (not listening yet) is asked again, like another status.
  return vi.waitFor(
    async () => {
      const response = await fetch(url);
      expect(response.status, `${url} did not answer ${status} within ${timeoutMs} ms`).toBe(status);
      return response;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

/** Whether a process exists (one that exited and was reaped no longer does). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the processes whose command line mentions `text` (Linux /proc). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** A server process on a free loopback port, with a first admin, on the test environment's data. */
export async function serverProcessSettings(
  environmentEnv: Record<string, string>,
  admin: { email: string; password: string },
): Promise<{ port: number; base: string; env: Record<string, string> }> {
  const port = await freePortFor();
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    base,
    env: {
      ...environmentEnv,
      PORT: String(port),
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    },
  };
}

/** A JSON call to a server process's /api; a status other than 2xx throws with the body. */
export async function apiCall<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A real car-agent process on the simulator, connecting to `base` as the car. */
export function startSimAgent(
  base: string,
  carId: number,
  secret: string,
  extraArgs: readonly string[] = [],
): ChildProcess {
  const command = agentCommand();
  return spawn(
    command.command,
    [...command.args, '--server', base, '--car', String(carId), '--drive', 'sim', ...extraArgs],
    {
      env: { PATH: process.env.PATH ?? '', CAR_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** Resolves with the first line matching `pattern` the process prints from now on, and when. */
export function lineAppears(child: ChildProcess, pattern: RegExp): Promise<{ line: string; at: number }> {
  return new Promise((resolve) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      const at = performance.now();
      buffer += chunk.toString();
      const line = buffer.split('\n').find((candidate) => pattern.test(candidate));
      if (line === undefined) return;
      child.stdout?.off('data', onData);
      resolve({ line, at });
    };
    child.stdout?.on('data', onData);
  });
}

/** SIGKILLs the process if it still runs, and resolves once it is gone. */
export async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/** The server process on `env`, once it answers /api/ready (killed if it never does). */
export async function startReadyServer(env: Record<string, string>, base: string): Promise<ChildProcess> {
  const server = startServer(env);
  try {
    await waitForStatus(`${base}/api/ready`, 200, 60_000);
  } catch (error) {
    await killProcess(server);
    throw error;
  }
  return server;
}

/** A member's access token from a server process's login. */
export async function logIn(base: string, member: { email: string; password: string }): Promise<string> {
  const { email, password } = member;
  const answer = await apiCall<{ accessToken: string }>(base, 'POST', '/login', {
    email,
    password,
    recaptchaToken: '',
  });
  return answer.accessToken;
}

/** A ready server process on a free port of the test environment's data, its first admin logged in. */
export async function startServerProcess(
  environmentEnv: Record<string, string>,
  admin: { email: string; password: string },
): Promise<{
  server: ChildProcess;
  port: number;
  base: string;
  env: Record<string, string>;
  adminToken: string;
}> {
  const { port, base, env } = await serverProcessSettings(environmentEnv, admin);
  await seedMigratedDatabase(env);
  const server = await startReadyServer(env, base);
  try {
    return { server, port, base, env, adminToken: await logIn(base, admin) };
  } catch (error) {
    await killProcess(server);
    throw error;
  }
}

/** A car the admin adds, and a real sim agent process connecting as it. */
export async function addSimCar(
  base: string,
  adminToken: string,
  name: string,
  agentArgs: readonly string[] = [],
): Promise<{ carId: number; agent: ChildProcess }> {
  const { car, secret } = await apiCall<{ car: { id: number }; secret: string }>(
    base,
    'POST',
    '/admin/cars',
    { name, image_url: null },
    adminToken,
  );
  return { carId: car.id, agent: startSimAgent(base, car.id, secret, agentArgs) };
}

/** The driver takes the car with a control code the admin generates; the control token. */
export async function takeCarWithCode(
  base: string,
  carId: number,
  adminToken: string,
  driverToken = adminToken,
): Promise<string> {
  const { code } = await apiCall<{ code: string }>(
    base,
    'POST',
    `/admin/cars/${carId}/generate_code`,
    undefined,
    adminToken,
  );
  const { controlToken } = await apiCall<{ controlToken: string }>(
    base,
    'POST',
    `/cars/${carId}/connect`,
    { code },
    driverToken,
  );
  return controlToken;
}

/** The exit code, or 'still running' after `ms`. */
export async function exitCodeWithin(
  child: ChildProcess,
  ms: number,
): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  try {
    return await Promise.race([once(child, 'exit').then(([code]) => code as number | null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A driver holding full throttle on a car they hold: the control socket sends a drive every
 * 100 ms (as the page does) and this resolves once the car's telemetry says it moves. `stop`
 * ends the repetition and closes nothing.
 */
export async function holdFullThrottle(
  base: string,
  port: number,
  carId: number,
  token: string,
): Promise<{ socket: WebSocket; stop: () => void }> {
  const controlToken = await takeCarWithCode(base, carId, token);
  const socket = new WebSocket(controllerUrl(`127.0.0.1:${port}`, carId, token, controlToken), {
    headers: { origin: base },
    perMessageDeflate: false,
  });
  await once(socket, 'open');
  const moving = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; telemetry?: { speed?: number } };
      if (message.type === 'telemetry' && (message.telemetry?.speed ?? 0) > 0.5) resolve();
    });
  });
  const repeat = setInterval(
    () => socket.send(JSON.stringify({ type: 'drive', throttle: 1, steer: 0 })),
    100,
  );
  socket.once('close', () => clearInterval(repeat));
  await moving;
  return { socket, stop: () => clearInterval(repeat) };
}
