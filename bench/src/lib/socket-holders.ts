/**
 * The processes holding `npm run check:nginx`'s event sockets (socket-holder-worker.ts): the URLs
 * are dealt round-robin to them, and their counts added up.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Check → holder. */
export type ToHolder =
  | { kind: 'connect'; urls: string[]; origin: string; ca: string; concurrency: number }
  | { kind: 'check' }
  | { kind: 'close' };

/** Holder → check. */
export type FromHolder =
  | { kind: 'connected'; open: number; failed: number; errors: Record<string, number> }
  | { kind: 'checked'; open: number; answered: number; closed: Record<string, number> };

const WORKER = fileURLToPath(new URL('./socket-holder-worker.ts', import.meta.url));

/** Adds up counts by key. */
function addCounts(all: Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const counts of all) for (const [key, n] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + n;
  return sum;
}

class Holder {
  readonly #child: ChildProcess;

  constructor() {
    // The check's own flags (tsx, source conditions) let the worker be TypeScript.
    this.#child = fork(WORKER, [], { execArgv: process.execArgv, stdio: 'inherit' });
  }

  ask<K extends FromHolder['kind']>(message: ToHolder, kind: K): Promise<Extract<FromHolder, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (answer: FromHolder) => {
        if (answer.kind !== kind) return;
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
        resolve(answer as Extract<FromHolder, { kind: K }>);
      };
      const onExit = (code: number | null) => reject(new Error(`socket holder exited (${code})`));
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
      this.#child.send(message);
    });
  }

  close(): Promise<void> {
    if (this.#child.exitCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send({ kind: 'close' } satisfies ToHolder);
    return exited;
  }
}

export class SocketHolders {
  readonly #holders: Holder[];

  constructor(processes: number) {
    this.#holders = Array.from({ length: processes }, () => new Holder());
  }

  /** Opens every URL; how many answered their first ping, and why the others failed. */
  async connect(urls: string[], origin: string, ca: string, concurrency: number) {
    const n = this.#holders.length;
    const replies = await Promise.all(
      this.#holders.map((holder, h) =>
        holder.ask(
          { kind: 'connect', urls: urls.filter((_, i) => i % n === h), origin, ca, concurrency },
          'connected',
        ),
      ),
    );
    return {
      open: replies.reduce((sum, r) => sum + r.open, 0),
      failed: replies.reduce((sum, r) => sum + r.failed, 0),
      errors: addCounts(replies.map((r) => r.errors)),
    };
  }

  /** Pings every socket still open: how many are open, how many answered, and how the others closed. */
  async check() {
    const replies = await Promise.all(
      this.#holders.map((holder) => holder.ask({ kind: 'check' }, 'checked')),
    );
    return {
      open: replies.reduce((sum, r) => sum + r.open, 0),
      answered: replies.reduce((sum, r) => sum + r.answered, 0),
      closed: addCounts(replies.map((r) => r.closed)),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#holders.map((holder) => holder.close()));
  }
}
