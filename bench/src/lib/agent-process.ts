/**
 * A car agent process (apps/car's bundle) in a car's network namespace (car-netns.ts), whose log
 * lines are counted: its deadman trips, socket drops and drive channel losses (car-link bench), and
 * kept for a reader of the run when they say something of its deadman, channel or video.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CarNetns } from './car-netns.js';
import { ROOT } from './processes.js';

const MAIN = join(ROOT, 'apps/car/dist/main.js');

/** Why the agent cannot run (not built), or null. */
export function agentUnbuilt(): string | null {
  return existsSync(MAIN) ? null : 'The car agent is not built: run `npm run build` first.';
}

export interface AgentOptions {
  /** After `--server` and `--car`: the drive, the camera, the drive channel. */
  args: string[];
  /** The agent's whole environment (CAR_SECRET is added). */
  env: NodeJS.ProcessEnv;
}

export class AgentProcess {
  readonly child: ChildProcess;
  #buffer = '';
  readonly #waiters: { pattern: RegExp; resolve: () => void }[] = [];
  deadmanTrips = 0;
  socketDrops = 0;
  channelLosses = 0;
  /** The agent's lines about its deadman, its channel and its video, for a reader of the run. */
  readonly notable: string[] = [];

  constructor(netns: CarNetns, server: string, car: { id: number; secret: string }, options: AgentOptions) {
    this.child = netns.spawn(
      process.execPath,
      [MAIN, '--server', server, '--car', String(car.id), ...options.args],
      { env: { ...options.env, CAR_SECRET: car.secret }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk.toString()));
    // Read, or a pipe nobody reads would fill and stall the agent (GStreamer's warnings).
    this.child.stderr?.on('data', (chunk: Buffer) => this.#read(chunk.toString()));
  }

  /** Resolves at the next line matching `pattern`. */
  next(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the car agent did not log ${pattern} in time`)),
        timeoutMs,
      );
      this.#waiters.push({
        pattern,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  #read(text: string): void {
    this.#buffer += text;
    const lines = this.#buffer.split('\n');
    this.#buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (/neutral \(deadman/.test(line)) this.deadmanTrips += 1;
      if (/disconnected; reconnecting/.test(line)) this.socketDrops += 1;
      if (/drive channel lost/.test(line)) this.channelLosses += 1;
      if (/deadman|drive channel|video/.test(line)) this.notable.push(line);
      for (const waiter of [...this.#waiters]) {
        if (!waiter.pattern.test(line)) continue;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
