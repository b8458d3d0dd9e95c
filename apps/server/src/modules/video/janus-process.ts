/**
 * The Janus the server runs itself when JANUS_URL is unset and the `janus` binary is installed
 * (docs/video.md "Where Janus comes from"). At start: free loopback ports (WebSocket, REST, Admin API) and a random
 * 1000-port RTP window are chosen, the configuration is generated under `DATA_DIR/janus/` and
 * `janus -C … -F … -L … -o -N` is spawned; it is ready when REST `/janus/info` answers. A Janus
 * that exits is restarted with a backoff on the same ports, and `restarted` is emitted once it
 * answers again: mountpoints made at run time are gone then and must be re-created.
 */
import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { SupervisedProcess } from '../../child-process.js';
import { freeLoopbackPort } from '../../free-port.js';
import { JANUS_CONFIG_FOLDER, janusConfigFiles, newJanusSecrets } from './janus-config.js';

const KILL_GRACE_MS = 5_000;
/** Janus answers ~0.2 s after a cold start; this is generous for slow CI machines. */
const READY_TIMEOUT_MS = 20_000;
const RTP_WINDOW = 1_000;
const RTP_LOWEST = 20_000;
const RTP_HIGHEST = 59_999;

/** The `janus` executable on PATH, or null. */
export function findJanusBinary(path: string = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'janus');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Janus's library folder (with `plugins/libjanus_streaming.so`), or null. */
export function findJanusLibDir(): string | null {
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch === 'x64' ? 'x86_64' : process.arch;
  const candidates = [
    `/usr/lib/${arch}-linux-gnu/janus`,
    '/usr/lib/arm-linux-gnueabihf/janus',
    '/usr/lib/janus',
    '/usr/local/lib/janus',
    '/opt/janus/lib/janus',
  ];
  return candidates.find((dir) => existsSync(join(dir, 'plugins', 'libjanus_streaming.so'))) ?? null;
}

export interface JanusSupervisorOptions {
  /** Absolute; the configuration goes to `dataDir/janus/`. */
  dataDir: string;
  log: FastifyBaseLogger;
  /** Defaults to `findJanusBinary()`. */
  binary?: string;
  /** Defaults to `findJanusLibDir()`. */
  libDir?: string;
  /** JANUS_RTP_PORTS; defaults to a random 1000-port window in 20000–59999. */
  rtpPortRange?: readonly [number, number];
  /** JANUS_PUBLIC_IP: announced in place of the private address behind 1:1 NAT. */
  publicIp?: string | null;
}

interface JanusEndpoints {
  wsUrl: string;
  httpUrl: string;
  adminUrl: string;
  adminSecret: string;
  adminKey: string;
}

export class JanusSupervisor extends EventEmitter<{ restarted: []; exit: [number | null, string | null] }> {
  readonly #options: JanusSupervisorOptions;
  readonly #log: FastifyBaseLogger;
  #endpoints: JanusEndpoints | undefined;
  #process: SupervisedProcess | undefined;
  #stopping = false;

  constructor(options: JanusSupervisorOptions) {
    super();
    this.#options = options;
    this.#log = options.log.child({ component: 'janus' });
  }

  #get(): JanusEndpoints {
    if (!this.#endpoints) throw new Error('JanusSupervisor not started');
    return this.#endpoints;
  }

  /** `ws://127.0.0.1:<port>` (subprotocol `janus-protocol`). */
  get wsUrl(): string {
    return this.#get().wsUrl;
  }

  /** REST base, `http://127.0.0.1:<port>/janus`. */
  get httpUrl(): string {
    return this.#get().httpUrl;
  }

  /** Admin API, `http://127.0.0.1:<port>/admin` (with `adminSecret`). */
  get adminUrl(): string {
    return this.#get().adminUrl;
  }

  get adminSecret(): string {
    return this.#get().adminSecret;
  }

  /** The streaming plugin's key for creating mountpoints. */
  get adminKey(): string {
    return this.#get().adminKey;
  }

  /** The running Janus's pid (tests, diagnostics). */
  get pid(): number | undefined {
    return this.#process?.child?.pid;
  }

  get configDir(): string {
    return join(this.#options.dataDir, JANUS_CONFIG_FOLDER);
  }

  /** Writes the configuration, spawns Janus and resolves once it answers (rejects if it cannot). */
  async start(): Promise<void> {
    if (this.#endpoints) throw new Error('JanusSupervisor already started');
    const binary = this.#options.binary ?? findJanusBinary();
    if (!binary) throw new Error('janus is not installed (no `janus` on PATH)');
    const libDir = this.#options.libDir ?? findJanusLibDir();
    if (!libDir) throw new Error('the Janus plugins folder was not found');
    const ports = await distinctFreePorts(3);
    const [wsPort, httpPort, adminPort] = [ports[0] ?? 0, ports[1] ?? 0, ports[2] ?? 0];
    const low =
      RTP_LOWEST + RTP_WINDOW * randomInt(0, Math.floor((RTP_HIGHEST + 1 - RTP_LOWEST) / RTP_WINDOW));
    const rtpPortRange = this.#options.rtpPortRange ?? ([low, low + RTP_WINDOW - 1] as const);
    const secrets = newJanusSecrets();
    const dir = this.configDir;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const files = janusConfigFiles({
      configsFolder: dir,
      libDir,
      wsPort,
      httpPort,
      rtpPortRange,
      publicIp: this.#options.publicIp ?? null,
      adminApi: { port: adminPort, secret: secrets.adminSecret },
      adminKey: secrets.adminKey,
    });
    for (const [name, content] of Object.entries(files))
      await writeFile(join(dir, name), content, { mode: 0o600 });
    this.#endpoints = {
      wsUrl: `ws://127.0.0.1:${wsPort}`,
      httpUrl: `http://127.0.0.1:${httpPort}/janus`,
      adminUrl: `http://127.0.0.1:${adminPort}/admin`,
      ...secrets,
    };
    const janus = new SupervisedProcess({
      name: 'janus',
      command: binary,
      args: ['-C', join(dir, 'janus.jcfg'), '-F', dir, '-L', join(dir, 'janus.log'), '-o', '-N'],
      log: this.#log,
      outputLevel: 'debug',
      killGraceMs: KILL_GRACE_MS,
      // Janus's own shutdown can hang (a clean-clone run saw it alive 10 s after the server was
      // SIGKILLed, holding its ports): it keeps nothing a new server needs, so it is killed.
      deathSignal: 'KILL',
    });
    this.#process = janus;
    janus.on('exit', (code, signal) => this.emit('exit', code, signal));
    const child = janus.start();
    // Every later child is a restart: mountpoints made at run time are gone once it answers.
    janus.on('spawn', (restarted) => this.#restarted(restarted));
    const exited = once(child, 'exit').then(([code, signal]) => {
      throw new Error(`janus exited during start-up (code ${code}, signal ${signal}); see ${dir}/janus.log`);
    });
    exited.catch(() => {});
    try {
      await Promise.race([this.#waitReady(child), exited]);
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.#log.info(
      { httpUrl: this.httpUrl, wsUrl: this.wsUrl, rtpPortRange, pid: child.pid },
      'janus started',
    );
  }

  #restarted(child: ChildProcess): void {
    this.#waitReady(child).then(
      () => {
        this.#log.info({ pid: child.pid }, 'janus restarted');
        this.emit('restarted');
      },
      (error: unknown) => {
        if (this.#stopping || this.#process?.child !== child) return;
        // Not answering: kill it, and the supervisor tries again after the backoff.
        this.#log.error({ err: error }, 'janus did not answer after a restart');
        child.kill('SIGKILL');
      },
    );
  }

  /** Resolves when this child's REST `/info` answers; rejects if it exits or times out first. */
  async #waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const url = `${this.httpUrl}/info`;
    for (;;) {
      if (this.#stopping || child.exitCode !== null || child.signalCode !== null)
        throw new Error('janus exited before it answered');
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        const body = (await response.json()) as { janus?: string };
        if (response.ok && body.janus === 'server_info') return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`janus did not answer ${url} within ${READY_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM, SIGKILL after a grace period; no restart afterwards. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#process?.stop();
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freeLoopbackPort());
  return [...ports];
}
