/**
 * The server's child processes (its own Janus, the simulated cars' agents): spawned tied to the
 * server, restarted with the shared backoff when they exit on their own, stopped with it.
 *
 * Tied to the server: a SIGKILLed server (or one the out-of-memory killer took) would otherwise
 * leave its Janus and its simulated cars running beside the next server's. util-linux's
 * `setpriv --pdeathsig TERM` has the kernel send the child SIGTERM when the server dies, then
 * becomes the program (same pid). Without `setpriv` (not Debian), the program is spawned as is.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Backoff, type BackoffSchedule } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, type ClockTimer, systemClock } from './clock.js';

const SETPRIV = '/usr/bin/setpriv';

/** What the kernel sends a child when the server dies: TERM lets it end cleanly, KILL cannot hang. */
export type DeathSignal = 'TERM' | 'KILL';

export function spawnTiedToServer(
  command: string,
  args: string[],
  options: SpawnOptions,
  deathSignal: DeathSignal = 'TERM',
): ChildProcess {
  return existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', deathSignal, '--', command, ...args], options)
    : spawn(command, args, options);
}

/**
 * A crashing child (or the drive channel's worker thread) is started again after 250 ms, doubling up to 30 s: a one-off crash (Janus
 * killed while drivers watch) is back before a player's first retry at 1 s (docs/reliability.md),
 * a crash loop still slows down within seconds.
 */
export const RESTART_DELAYS: BackoffSchedule = { initialMs: 250, maxMs: 30_000 };
/** A child that ran this long had a fresh start: its next crash restarts quickly again. */
export const HEALTHY_RUN_MS = 30_000;
/** The wait before a child that asked for its restart (an exit code it chose) is started again. */
const ASKED_RESTART_MS = 100;

export interface SupervisedProcessOptions {
  /** Names the child in the log lines ("janus exited", "sim car agent exited"). */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Already bound to the child's fields (component, car). */
  log: FastifyBaseLogger;
  /** The level its stdout and stderr lines are logged at, each under `output`. */
  outputLevel?: 'info' | 'debug';
  /** Exit codes the child uses to ask for a restart: it comes back at once, the backoff starts over. */
  restartExitCodes?: readonly number[];
  /** SIGTERM, then SIGKILL after this long (`stop`). */
  killGraceMs: number;
  /** The signal the child gets if the server dies without stopping it (default TERM). */
  deathSignal?: DeathSignal;
  clock?: Clock;
  restartDelays?: BackoffSchedule;
}

/**
 * One child kept running: `start` spawns it, an exit nobody asked for spawns it again after the
 * backoff (`spawn` is emitted for each child, `exit` for each end), `stop` ends it for good.
 */
export class SupervisedProcess extends EventEmitter<{
  spawn: [ChildProcess];
  exit: [number | null, string | null];
}> {
  readonly #options: SupervisedProcessOptions;
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  #child: ChildProcess | undefined;
  #restartTimer: ClockTimer | undefined;
  #stopping = false;

  constructor(options: SupervisedProcessOptions) {
    super();
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#backoff = new Backoff(options.restartDelays ?? RESTART_DELAYS);
  }

  /** The running child, if any. */
  get child(): ChildProcess | undefined {
    return this.#child;
  }

  /** Spawns the first child (once); later ones come from the restarts. */
  start(): ChildProcess {
    if (this.#child) return this.#child;
    return this.#spawn();
  }

  #spawn(): ChildProcess {
    const { command, args, cwd, env, log, name } = this.#options;
    const startedAt = this.#clock.now().getTime();
    const child = spawnTiedToServer(
      command,
      args,
      { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
      this.#options.deathSignal,
    );
    this.#child = child;
    const level = this.#options.outputLevel ?? 'info';
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => log[level]({ output: line }, name));
    }
    child.on('error', (error) => log.error({ err: error }, `${name} failed to start`));
    child.on('exit', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      this.emit('exit', code, signal);
      if (this.#stopping) return;
      const asked = code !== null && (this.#options.restartExitCodes ?? []).includes(code);
      if (asked || this.#clock.now().getTime() - startedAt >= HEALTHY_RUN_MS) this.#backoff.reset();
      const delay = asked ? ASKED_RESTART_MS : this.#backoff.next();
      log.warn({ code, signal, restartInMs: delay }, `${name} exited`);
      this.#restartTimer = this.#clock.setTimeout(() => {
        this.#restartTimer = undefined;
        if (!this.#stopping) this.#spawn();
      }, delay);
    });
    this.emit('spawn', child);
    return child;
  }

  /** SIGTERM, SIGKILL after the grace period; no restart afterwards. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#clock.clear(this.#restartTimer);
    this.#restartTimer = undefined;
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      // A real timer: the grace period is the operating system's, not the domain's time.
      const kill = setTimeout(() => child.kill('SIGKILL'), this.#options.killGraceMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
    this.#child = undefined;
  }
}
