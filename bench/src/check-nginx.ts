/**
 * `npm run check:nginx`: the shipped nginx (deploy/nginx/nginx.conf with deploy/nginx/telerace.conf,
 * over TLS; lib/deployed-nginx.ts) holds 5,000 WebSockets in front of one built server while the
 * site keeps answering. Needs `npm run build` and nginx (the npm script installs nginx as root).
 *
 * 1. The built server on a throw-away embedded database (lib/processes.ts), as deployed behind one
 *    nginx (TRUST_PROXY=1, PUBLIC_URL = the nginx address), with the limits every client at
 *    127.0.0.1 would hit lifted: SOCKETS_PER_IP (nginx writes the real address, 127.0.0.1, last in
 *    X-Forwarded-For, so the server sees every socket from one address — what an event operator
 *    does for a crowd behind one address), and the sign-up and API limits for the set-up.
 * 2. 1,000 members signed up and logged in on the instance directly (5 event sockets each, the
 *    per-member cap), then nginx started.
 * 3. nginx's rate limit on the public reads (telerace.conf): 3,000 `GET /api/health` from the one
 *    address over 300 connections, past the zone's burst; the refused ones must be 429 in the
 *    server's error shape.
 * 4. From two client processes (lib/socket-holders.ts), 5,000 event sockets (`wss://…/api/race-ws`)
 *    through nginx, each counted once the server's `pong` came back through it, each pinging every
 *    10 s after; meanwhile, every 250 ms, `GET /api/health` and the home page through nginx, each on
 *    a new TLS connection.
 * 5. The sockets held for --hold-seconds (20: past the server's 15 s keep-alive ping), then every
 *    one pinged again; the server's own count of event sockets (its /metrics) read.
 *
 * Fails (exit code 1) unless every socket opened and answered twice, the server counted them all,
 * every poll answered 200, nginx logged no "worker_connections are not enough" (nor anything at
 * crit or emerg), and the limit refused with 429 JSON. Results: bench/results/nginx-sockets.json.
 * Flags: --sockets (5000), --hold-seconds (20), --stock (Debian's /etc/nginx/nginx.conf instead of
 * the shipped one: shows what the shipped one fixes, and fails). CHECK_LOG_LEVEL (warn): the
 * server's log level.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  type DeployedNginx,
  SHIPPED_MAIN_CONF,
  STOCK_MAIN_CONF,
  startDeployedNginx,
} from './lib/deployed-nginx.js';
import { freePort, ROOT, type Running, startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { metric, scrapeMetrics } from './lib/server-metrics.js';
import { SocketHolders } from './lib/socket-holders.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, signUpMember } from './lib/telerace-api.js';

const { values: flags } = parseArgs({
  options: {
    sockets: { type: 'string', default: '5000' },
    'hold-seconds': { type: 'string', default: '20' },
    stock: { type: 'boolean', default: false },
  },
});
const SOCKETS = Number(flags.sockets);
const HOLD_S = Number(flags['hold-seconds']);
const STOCK = flags.stock;
/** CONTROL_LIMITS.eventSocketsPerMember. */
const SOCKETS_PER_MEMBER = 5;
/** Sign-ups in flight (each costs an argon2 hash, and its log-in another). */
const SIGNUP_CONCURRENCY = 4;
const HOLDER_PROCESSES = 2;
/** Handshakes in flight per holder process. */
const HANDSHAKES_IN_FLIGHT = 25;
const POLL_EVERY_MS = 250;
/** Requests of the rate-limit burst: past the zone's burst (1,000) plus what it refills meanwhile. */
const LIMIT_REQUESTS = 3000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
}

/** One GET through nginx, trusting the run's certificate. `agent: false`: a new TLS connection. */
function get(url: string, ca: string, agent: Agent | false, timeoutMs = 10_000): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers, ms: performance.now() - started }),
      );
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Polls `paths` through nginx until stopped: every answer's status, and what failed. */
class Poller {
  readonly statuses: Record<string, number> = {};
  readonly failures: string[] = [];
  readonly latencies: number[] = [];
  #running = true;
  readonly #done: Promise<void>;

  constructor(base: string, ca: string, paths: string[]) {
    this.#done = this.#loop(base, ca, paths);
  }

  async #loop(base: string, ca: string, paths: string[]): Promise<void> {
    while (this.#running) {
      const next = pause(POLL_EVERY_MS);
      await Promise.all(
        paths.map(async (path) => {
          try {
            const answer = await get(`${base}${path}`, ca, false);
            this.latencies.push(answer.ms);
            const key = `${path} ${answer.status}`;
            this.statuses[key] = (this.statuses[key] ?? 0) + 1;
            if (answer.status !== 200) this.failures.push(`${key}: ${answer.body.slice(0, 120)}`);
          } catch (error) {
            this.failures.push(`${path}: ${(error as Error).message}`);
          }
        }),
      );
      await next;
    }
  }

  get answered(): number {
    return Object.values(this.statuses).reduce((sum, n) => sum + n, 0);
  }

  get non200(): number {
    return this.failures.length;
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}

/** A worker's soft limit of open files (/proc/<pid>/limits). */
function maxOpenFiles(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1] ?? Number.NaN);
}

const openFiles = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** Lines of nginx's error log by level, and the lines that mean it ran out of connections. */
function errorLogSummary(log: string) {
  const lines = log.split('\n').filter(Boolean);
  const byLevel: Record<string, number> = {};
  for (const line of lines) {
    const level = /\[(\w+)\]/.exec(line)?.[1] ?? 'other';
    byLevel[level] = (byLevel[level] ?? 0) + 1;
  }
  return {
    byLevel,
    notEnoughConnections: lines.filter((l) => l.includes('worker_connections are not enough')).length,
    severe: lines.filter((l) => /\[(error|alert|crit|emerg)\]/.test(l)).slice(0, 8),
  };
}

/** Members with a token each, enough for `sockets` event sockets at the per-member cap. */
async function signUpMembers(base: string, sockets: number): Promise<string[]> {
  const count = Math.ceil(sockets / SOCKETS_PER_MEMBER);
  const tokens: string[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: SIGNUP_CONCURRENCY }, async () => {
      while (started < count) {
        started++;
        tokens.push(await signUpMember(base));
      }
    }),
  );
  return tokens;
}

/** Connections of the rate-limit burst, opened first (on the page, which is not limited). */
const LIMIT_CONNECTIONS = 300;

/**
 * nginx's limit on the public reads: `LIMIT_REQUESTS` over `LIMIT_CONNECTIONS` kept-alive
 * connections, opened beforehand so the requests arrive faster than the zone refills however
 * slowly the server answers the ones it lets through.
 */
async function burstPublicReads(nginx: DeployedNginx) {
  const agent = new Agent({ keepAlive: true, maxSockets: LIMIT_CONNECTIONS });
  const answer = (path: string): Promise<Answer> =>
    get(`${nginx.url}${path}`, nginx.ca, agent, 30_000).catch((error: Error) => ({
      status: 0,
      body: error.message,
      headers: {},
      ms: 0,
    }));
  try {
    await Promise.all(Array.from({ length: LIMIT_CONNECTIONS }, () => answer('/')));
    const answers = await Promise.all(Array.from({ length: LIMIT_REQUESTS }, () => answer('/api/health')));
    const refused = answers.filter((a) => a.status === 429);
    const wellFormed = refused.filter((a) => {
      try {
        const body = JSON.parse(a.body) as { errorKey?: string };
        return body.errorKey === 'errors.tooManyRequests' && a.headers['retry-after'] === '1';
      } catch {
        return false;
      }
    });
    return {
      requests: LIMIT_REQUESTS,
      ok: answers.filter((a) => a.status === 200).length,
      refused: refused.length,
      refused_well_formed: wellFormed.length,
      other: answers.filter((a) => a.status !== 200 && a.status !== 429).length,
    };
  } finally {
    agent.destroy();
  }
}

async function main(): Promise<boolean> {
  const started = performance.now();
  const seconds = (from: number) => round((performance.now() - from) / 1000, 1);
  const httpsPort = await freePort();
  const metricsPort = await freePort();
  const publicUrl = `https://127.0.0.1:${httpsPort}`;
  let server: Running | null = null;
  let nginx: DeployedNginx | null = null;
  const holders = new SocketHolders(HOLDER_PROCESSES);
  try {
    if (!existsSync(join(ROOT, 'apps/web/dist/index.html')))
      throw new Error('The web app is not built: run `npm run build` first.');
    server = await startTelerace({
      ...BENCH_SERVER_ENV,
      PUBLIC_URL: publicUrl,
      METRICS_PORT: String(metricsPort),
      VIDEO: 'off',
      LOG_LEVEL: process.env.CHECK_LOG_LEVEL ?? 'warn',
      SOCKETS_PER_IP: String(SOCKETS * 2),
    });
    const setUpFrom = performance.now();
    const tokens = await signUpMembers(server.url, SOCKETS);
    const signUpS = seconds(setUpFrom);
    console.info(`${tokens.length} members signed up and logged in in ${signUpS} s`);

    nginx = await startDeployedNginx({
      httpsPort,
      upstreamPort: Number(new URL(server.url).port),
      stock: STOCK,
    });
    const workers = nginx.workerPids();
    // First, while nothing else runs; then the zone's burst refills (1,000 at 200 a second) before the polls.
    const limit = await burstPublicReads(nginx);
    await pause(6000);
    const poller = new Poller(nginx.url, nginx.ca, ['/api/health', '/']);

    const wsBase = nginx.url.replace(/^https/, 'wss');
    const urls = Array.from(
      { length: SOCKETS },
      (_, i) =>
        `${wsBase}/api/race-ws?token=${encodeURIComponent(tokens[Math.floor(i / SOCKETS_PER_MEMBER)] ?? '')}`,
    );
    const openFrom = performance.now();
    const opened = await holders.connect(urls, publicUrl, nginx.ca, HANDSHAKES_IN_FLIGHT);
    const openS = seconds(openFrom);
    console.info(`${opened.open} of ${SOCKETS} sockets open through nginx in ${openS} s`);

    let peakOpenFiles = 0;
    const holdUntil = performance.now() + HOLD_S * 1000;
    while (performance.now() < holdUntil) {
      peakOpenFiles = Math.max(peakOpenFiles, ...workers.map(openFiles));
      await pause(1000);
    }
    const held = await holders.check();
    const serverSockets = metric(
      await scrapeMetrics(`http://127.0.0.1:${metricsPort}/metrics`),
      'telerace_sockets_open',
      { kind: 'event' },
    );
    await poller.stop();
    const log = errorLogSummary(nginx.errorLog());

    const polls = summarize(poller.latencies);
    const result = {
      nginx_conf: STOCK ? STOCK_MAIN_CONF : SHIPPED_MAIN_CONF,
      sockets: {
        wanted: SOCKETS,
        opened: opened.open,
        failed: opened.failed,
        errors: opened.errors,
        open_s: openS,
        held_s: HOLD_S,
        open_after_hold: held.open,
        answered_after_hold: held.answered,
        closed_while_held: held.closed,
        server_count: serverSockets,
      },
      polls: {
        answered: poller.answered,
        statuses: poller.statuses,
        non_200: poller.non200,
        failures: poller.failures.slice(0, 5),
        p50_ms: round(polls.p50, 1),
        p99_ms: round(polls.p99, 1),
        max_ms: round(polls.max, 1),
      },
      nginx: {
        workers: workers.length,
        worker_max_open_files: workers.map(maxOpenFiles),
        peak_open_files_in_a_worker: peakOpenFiles,
        error_log: log.byLevel,
        worker_connections_not_enough: log.notEnoughConnections,
        severe: log.severe,
      },
      rate_limit: limit,
      members_sign_up_s: signUpS,
      total_s: seconds(started),
    };
    const passed =
      opened.open === SOCKETS &&
      held.open === SOCKETS &&
      held.answered === SOCKETS &&
      serverSockets === SOCKETS &&
      poller.answered > 0 &&
      poller.non200 === 0 &&
      log.notEnoughConnections === 0 &&
      !log.severe.some((line) => /\[(crit|emerg)\]/.test(line)) &&
      limit.refused > 0 &&
      limit.refused_well_formed === limit.refused &&
      limit.other === 0;
    const rows: Row[] = [
      { what: 'sockets open (answered a ping)', value: `${opened.open} / ${SOCKETS}`, note: `in ${openS} s` },
      {
        what: `still open after ${HOLD_S} s (answered again)`,
        value: `${held.answered} / ${SOCKETS}`,
        note: `server counts ${serverSockets}`,
      },
      {
        what: 'polls through nginx (/api/health, /)',
        value: `${poller.answered - poller.non200} × 200, ${poller.non200} other`,
        note: `p50 ${round(polls.p50, 1)} ms, p99 ${round(polls.p99, 1)} ms, new TLS each`,
      },
      {
        what: 'nginx workers: open-file limit, peak in one',
        value: `${workers.map(maxOpenFiles).join(', ')}; ${peakOpenFiles}`,
        note: `"not enough" lines: ${log.notEnoughConnections}`,
      },
      {
        what: `rate limit: ${LIMIT_REQUESTS} GET /api/health at once`,
        value: `${limit.ok} × 200, ${limit.refused} × 429`,
        note: `${limit.refused_well_formed} in the server's error shape`,
      },
      { what: 'total', value: `${result.total_s} s`, note: `sign-ups ${signUpS} s` },
    ];
    printTable(`nginx in front of one server (${result.nginx_conf})`, rows);
    for (const line of log.severe) console.warn(`nginx: ${line}`);
    for (const line of poller.failures.slice(0, 5)) console.warn(`poll: ${line}`);
    for (const [reason, n] of Object.entries(opened.errors)) console.warn(`socket: ${n} × ${reason}`);
    console.info(`results: ${writeResult('nginx-sockets', { ...result, passed })}`);
    console.info(passed ? 'check:nginx: passed' : 'check:nginx: FAILED');
    return passed;
  } finally {
    await holders.close();
    await nginx?.stop();
    await server?.stop();
  }
}

process.exit((await main()) ? 0 : 1);
