/** Starts the built server (or a baseline) as a child process on a free loopback port. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/**
 * The checkout whose built server is measured: this one, or TELERACE_ROOT (e.g. a `git worktree`
 * of an older commit, to measure "before" with today's benches).
 */
export const ROOT = process.env.TELERACE_ROOT
  ? resolve(process.env.TELERACE_ROOT)
  : join(dirname(fileURLToPath(import.meta.url)), '../../..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Waits until something accepts TCP connections on the port (for servers without an HTTP answer). */
export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
}

export interface Running {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function track(child: ChildProcess, url: string, cleanup: () => void): Running {
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          cleanup();
          resolve();
          return;
        }
        child.once('exit', () => {
          cleanup();
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Extra Node flags for the measured server only, e.g. `BENCH_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"` to profile it under a bench's load (Node refuses --cpu-prof in
 * NODE_OPTIONS, and that would profile the bench and the load process too).
 */
const SERVER_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * BENCH_SERVER_CPUS=1 (a `taskset` CPU list): the measured servers and their baselines run on
 * these CPUs only. With the load generator held on the others (`taskset -c 0 npm run bench …`),
 * neither steals the other's core: on 2 cores, an unpinned autocannon with its GC threads took
 * up to 1.1 cores and left the server half of one in some runs (p99 12 ms instead of 4).
 */
const SERVER_CPUS = process.env.BENCH_SERVER_CPUS;

/** Node with `args`, on SERVER_CPUS when set. */
function spawnNode(args: string[], options: Parameters<typeof spawn>[2]): ChildProcess {
  return SERVER_CPUS
    ? spawn('taskset', ['-c', SERVER_CPUS, process.execPath, ...args], options)
    : spawn(process.execPath, args, options);
}

export interface StartOptions {
  /** Node flags for this server only, after BENCH_NODE_ARGS (e.g. its own `--inspect` port). */
  nodeArgs?: string[];
  /**
   * Reads its stdout and stderr from the moment it is spawned (they are piped to it, not
   * inherited): a pipe nobody reads would fill and stall the server's logging.
   */
  onOutput?: (stdout: Readable, stderr: Readable) => void;
}

/** The real, built Telerace server on an embedded database in a throw-away folder. */
export async function startTelerace(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Running> {
  const main = join(ROOT, 'apps/server/dist/main.js');
  if (!existsSync(main)) throw new Error('The server is not built: run `npm run build` first.');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'telerace-bench-'));
  const output = options.onOutput ? 'pipe' : 'inherit';
  const child = spawnNode([...SERVER_NODE_ARGS, ...(options.nodeArgs ?? []), main], {
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Every simulated driver and viewer of a bench connects from 127.0.0.1.
      SOCKETS_PER_IP: '100000',
      ...env,
    },
    stdio: ['ignore', output, output],
  });
  if (options.onOutput && child.stdout && child.stderr) options.onOutput(child.stdout, child.stderr);
  const url = `http://127.0.0.1:${port}`;
  // A fresh PGlite applies every migration before /api/ready: 20–34 s on a 2-core machine at load 12.
  await waitFor(`${url}/api/ready`, 120_000);
  return track(child, url, () => rmSync(dataDir, { recursive: true, force: true }));
}

/** A Node program given as source, run as its own process with PORT set; ready when `readyPath` answers (or the port opens). */
export async function startScript(
  source: string,
  readyPath: string | null,
  env: Record<string, string> = {},
): Promise<Running> {
  const port = await freePort();
  const child = spawnNode(['--input-type=module', '-e', source], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  if (readyPath === null) await waitForPort(port);
  else await waitFor(`${url}${readyPath}`);
  return track(child, url, () => {});
}
