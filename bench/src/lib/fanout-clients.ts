/**
 * The fan-out bench's clients: thousands of sockets split over worker processes (fanout-worker.ts),
 * so that receiving them never runs on the bench's event loop nor on the server's. The same
 * clients measure the real event sockets and the bare `ws` broadcast baseline.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './proc-stats.js';

/** Bench → worker. */
export type ToWorker =
  | { kind: 'connect'; urls: string[]; origin?: string; concurrency: number }
  | { kind: 'watch'; sample: number; type: string; marker: string; timeoutMs: number }
  | { kind: 'close' };

/** Worker → bench. */
export type FromWorker =
  | { kind: 'connected'; open: number; failed: number; errors: string[] }
  | { kind: 'watching'; sample: number; open: number }
  | { kind: 'received'; sample: number; times: number[]; missing: number; cpuMs: number };

/** One broadcast as every client saw it. */
export interface Delivery {
  /** Delay of each socket that got it (ms from the trigger's send). */
  delays: number[];
  /** Sockets that never got it within the timeout. */
  missing: number;
  /** CPU the client processes spent while it was being delivered (ms, all workers). */
  clientCpuMs: number;
  /** CPU the server processes spent meanwhile (ms, in 10 ms ticks: meaningful summed over samples). */
  serverCpuMs: number;
}

const WORKER = fileURLToPath(new URL('./fanout-worker.ts', import.meta.url));

/** The epoch clock in high resolution, shared with the workers (see fanout-worker.ts). */
export const epochNow = (): number => performance.timeOrigin + performance.now();

class Worker {
  readonly #child: ChildProcess;

  constructor() {
    // The bench's own flags (tsx, source conditions) let the worker be TypeScript.
    this.#child = fork(WORKER, [], { execArgv: process.execArgv, stdio: 'inherit' });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  send(message: ToWorker): void {
    this.#child.send(message);
  }

  next<K extends FromWorker['kind']>(kind: K): Promise<Extract<FromWorker, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.kind !== kind) return;
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
        resolve(message as Extract<FromWorker, { kind: K }>);
      };
      const onExit = (code: number | null) => reject(new Error(`fan-out worker exited (${code})`));
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
    });
  }

  close(): Promise<void> {
    if (this.#child.exitCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.send({ kind: 'close' });
    return exited;
  }
}

export class FanoutClients {
  readonly #workers: Worker[];

  /** The server processes whose CPU time each delivery reports, summed (set once they run). */
  serverPids: number[] = [];

  constructor(workers: number) {
    this.#workers = Array.from({ length: workers }, () => new Worker());
  }

  get pids(): number[] {
    return this.#workers.map((w) => w.pid ?? 0);
  }

  /** Opens every URL (dealt round-robin to the workers); returns how many are open and why others failed. */
  async connect(
    urls: string[],
    origin?: string,
  ): Promise<{ open: number; failed: number; errors: string[] }> {
    const shares = this.#workers.map((_, w) => urls.filter((_, i) => i % this.#workers.length === w));
    const replies = await Promise.all(
      this.#workers.map((worker, w) => {
        const reply = worker.next('connected');
        worker.send({ kind: 'connect', urls: shares[w] ?? [], origin, concurrency: 50 });
        return reply;
      }),
    );
    return {
      open: replies.reduce((n, r) => n + r.open, 0),
      failed: replies.reduce((n, r) => n + r.failed, 0),
      errors: [...new Set(replies.flatMap((r) => r.errors))],
    };
  }

  /**
   * Times one broadcast: every worker starts watching for a message of `type` containing `marker`,
   * then `trigger` sends it (and returns when it sent, on `epochNow`); resolves once every socket
   * has it or `timeoutMs` passed.
   */
  async deliver(
    sample: number,
    type: string,
    marker: string,
    trigger: () => number,
    timeoutMs = 10_000,
  ): Promise<Delivery> {
    await Promise.all(
      this.#workers.map((worker) => {
        const watching = worker.next('watching');
        worker.send({ kind: 'watch', sample, type, marker, timeoutMs });
        return watching;
      }),
    );
    const received = this.#workers.map((worker) => worker.next('received'));
    const serverCpu = () => this.serverPids.reduce((ms, pid) => ms + cpuMs(pid), 0);
    const serverCpuBefore = serverCpu();
    const sentAt = trigger();
    const replies = await Promise.all(received);
    return {
      serverCpuMs: serverCpu() - serverCpuBefore,
      delays: replies.flatMap((r) => r.times.map((t) => t - sentAt)),
      missing: replies.reduce((n, r) => n + r.missing, 0),
      clientCpuMs: replies.reduce((n, r) => n + r.cpuMs, 0),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
  }
}
