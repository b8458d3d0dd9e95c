/**
 * The soak run's audience: thousands of event sockets (`/api/race-ws`) held by worker processes
 * (spectator-worker.ts), never by the server's nor the run's own event loop, each behaving as the
 * web app's event socket does (hello, get_current_state, a `ping` every 2 s and a `ping_update`
 * with each round trip), with churn: every second the oldest sockets close and as many new ones
 * open, so the server keeps admitting and forgetting sockets for the whole run.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemberSession } from './member-sessions.js';

/** Run → worker. */
export type ToSpectatorWorker =
  | {
      kind: 'start';
      /** The server's address (http://…): the sockets go to its ws:// twin, with it as Origin. */
      base: string;
      members: { id: number; token: string }[];
      sockets: number;
      churnPerSecond: number;
    }
  | { kind: 'tokens'; members: { id: number; token: string }[] }
  | { kind: 'count' }
  | { kind: 'stop' };

/** What a worker has seen since it started (totals: the run takes differences). */
export interface SpectatorCounts {
  open: number;
  /** Sockets opened, and closed by the worker (churn). */
  opened: number;
  closed: number;
  /** Upgrades that failed, with a few of their reasons. */
  failed: number;
  failures: string[];
  /** Sockets the server closed, by close code (a healthy run has none). */
  closedByServer: Record<string, number>;
  /** Messages received (broadcasts, pongs, answers). */
  received: number;
  /** Ping round trips, per whole millisecond (index = ms, the last slot: that many or more). */
  roundTripMs: number[];
}

/** Worker → run. */
export type FromSpectatorWorker =
  | { kind: 'filled'; counts: SpectatorCounts }
  | { kind: 'counted'; counts: SpectatorCounts };

/** What the audience did between two counts. */
export interface SpectatorInterval {
  connects: number;
  closes: number;
  connect_failures: number;
  closed_by_server: number;
  /** Messages each socket received a second (broadcasts, pongs), on average. */
  received_per_socket_s: number;
  /** The event sockets' ping round trip, p99, whole ms. */
  event_round_trip_p99_ms: number;
}

/** The p99 of a histogram of whole milliseconds. */
function p99OfMs(counts: number[]): number {
  const total = counts.reduce((n, c) => n + c, 0);
  if (total === 0) return Number.NaN;
  let running = 0;
  for (let ms = 0; ms < counts.length; ms++) {
    running += counts[ms] ?? 0;
    if (running >= 0.99 * total) return ms + 1;
  }
  return counts.length;
}

export function spectatorInterval(
  now: SpectatorCounts,
  before: SpectatorCounts,
  seconds: number,
): SpectatorInterval {
  const serverCloses = (c: SpectatorCounts) => Object.values(c.closedByServer).reduce((n, k) => n + k, 0);
  return {
    connects: now.opened - before.opened,
    closes: now.closed - before.closed,
    connect_failures: now.failed - before.failed,
    closed_by_server: serverCloses(now) - serverCloses(before),
    received_per_socket_s:
      Math.round(((now.received - before.received) / Math.max(1, now.open) / seconds) * 10) / 10,
    event_round_trip_p99_ms: p99OfMs(now.roundTripMs.map((n, ms) => n - (before.roundTripMs[ms] ?? 0))),
  };
}

const WORKER = fileURLToPath(new URL('./spectator-worker.ts', import.meta.url));

function next<K extends FromSpectatorWorker['kind']>(
  child: ChildProcess,
  kind: K,
): Promise<Extract<FromSpectatorWorker, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromSpectatorWorker) => {
      if (message.kind !== kind) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<FromSpectatorWorker, { kind: K }>);
    };
    const onExit = (code: number | null) => reject(new Error(`spectator worker exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export const noCounts = (): SpectatorCounts => ({
  open: 0,
  opened: 0,
  closed: 0,
  failed: 0,
  failures: [],
  closedByServer: {},
  received: 0,
  roundTripMs: [],
});

/** Sums the workers' counts (round trips bucket by bucket). */
function sumCounts(all: SpectatorCounts[]): SpectatorCounts {
  const total = noCounts();
  for (const counts of all) {
    total.open += counts.open;
    total.opened += counts.opened;
    total.closed += counts.closed;
    total.failed += counts.failed;
    total.failures = [...new Set([...total.failures, ...counts.failures])].slice(0, 10);
    for (const [code, n] of Object.entries(counts.closedByServer))
      total.closedByServer[code] = (total.closedByServer[code] ?? 0) + n;
    total.received += counts.received;
    counts.roundTripMs.forEach((n, ms) => {
      total.roundTripMs[ms] = (total.roundTripMs[ms] ?? 0) + n;
    });
  }
  return total;
}

export class Spectators {
  readonly #workers: ChildProcess[];
  readonly #members: MemberSession[];

  /** `members[i]` is known to the workers as id i; each worker gets its own share of them. */
  constructor(workers: number, members: MemberSession[]) {
    this.#members = members;
    // The run's own flags (tsx, source conditions) let the worker be TypeScript.
    this.#workers = Array.from({ length: workers }, () =>
      fork(WORKER, [], { execArgv: process.execArgv, stdio: 'inherit' }),
    );
  }

  get pids(): number[] {
    return this.#workers.map((w) => w.pid ?? 0);
  }

  #share(w: number): { id: number; token: string }[] {
    return this.#members
      .map((member, id) => ({ id, token: member.token }))
      .filter(({ id }) => id % this.#workers.length === w);
  }

  /** Opens `sockets` in all and starts the churn once they are open; answers the counts then. */
  async fill(base: string, sockets: number, churnPerSecond: number): Promise<SpectatorCounts> {
    const n = this.#workers.length;
    const filled = await Promise.all(
      this.#workers.map((worker, w) => {
        const done = next(worker, 'filled');
        worker.send({
          kind: 'start',
          base,
          members: this.#share(w),
          // Worker w holds every n-th socket, and every n-th part of the churn.
          sockets: Math.floor(sockets / n) + (w < sockets % n ? 1 : 0),
          churnPerSecond: churnPerSecond / n,
        } satisfies ToSpectatorWorker);
        return done;
      }),
    );
    return sumCounts(filled.map((f) => f.counts));
  }

  /** Refreshes the tokens that need it and hands them to the workers (new sockets open with them). */
  async refreshTokens(): Promise<void> {
    const before = this.#members.map((m) => m.token);
    for (const member of this.#members) await member.fresh();
    if (this.#members.every((m, i) => m.token === before[i])) return;
    this.#workers.forEach((worker, w) => {
      worker.send({ kind: 'tokens', members: this.#share(w) } satisfies ToSpectatorWorker);
    });
  }

  async count(): Promise<SpectatorCounts> {
    const counted = await Promise.all(
      this.#workers.map((worker) => {
        const reply = next(worker, 'counted');
        worker.send({ kind: 'count' } satisfies ToSpectatorWorker);
        return reply;
      }),
    );
    return sumCounts(counted.map((c) => c.counts));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#workers.map((worker) => {
        if (worker.exitCode !== null) return Promise.resolve();
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.send({ kind: 'stop' } satisfies ToSpectatorWorker);
        return exited;
      }),
    );
  }
}
