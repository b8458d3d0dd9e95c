/**
 * `npm run bench -- http`: the reads every signed-in visitor makes (`GET /api/cars`, polled every
 * 5 s, `GET /api/me`, and the Leaderboards page's `GET /api/leaderboards/all-time`) with a
 * member's token, 50 connections for 10 s each, on the embedded PGlite and on PostgreSQL. Next to each: a bare Fastify in its own process answering the same
 * bytes with the same content type, measured in the same run — the ratio telerace/bare is what the
 * server's own work costs (issue 11's target: ≥ 0.5, 0 errors; reported here, not asserted).
 *
 * Scale-out (issue 15), with nginx installed and PostgreSQL and Redis reachable: `GET /api/cars`
 * and `GET /api/me` through the example nginx (deploy/nginx/telerace.conf, lib/nginx-proxy.ts) in
 * front of two instances, beside the same nginx in front of one of them and that instance reached
 * directly, in the same run: the ratio 2 instances / 1 instance is what the second one adds.
 * HTTP_PROXY_CASE=0 skips it.
 * Options (environment): BENCH_DURATION (10 s), BENCH_CONNECTIONS (50), BENCH_CARS (10).
 */
import { captureRoute, startBareRoutes } from './lib/bare-route.js';
import { DATABASES, type DatabaseKind, openDatabase } from './lib/databases.js';
import { type HttpMeasure, measureHttp } from './lib/http-load.js';
import { startInstances } from './lib/instances.js';
import { findNginx, startNginx } from './lib/nginx-proxy.js';
import { startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { BENCH_SERVER_ENV, createFleet, logInAdmin, signUpMember } from './lib/telerace-api.js';

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CARS = Number(process.env.BENCH_CARS ?? 10);
/** BENCH_PATHS=/api/cars (comma-separated) measures some of them only. */
const PATHS = ['/api/cars', '/api/me', '/api/leaderboards/all-time'].filter(
  (path) => !process.env.BENCH_PATHS || process.env.BENCH_PATHS.split(',').includes(path),
);
/** Untimed load before each measure (BENCH_WARM_UP seconds). */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP ?? 2);

interface PathResult {
  path: string;
  /** Size of the answer both servers send. */
  bytes: number;
  telerace: HttpMeasure;
  bare: HttpMeasure;
}

/** One database: a fresh server with a fleet and a member, each read measured next to its bare twin. */
async function onDatabase(kind: DatabaseKind): Promise<PathResult[] | null> {
  const database = await openDatabase(kind);
  if (!database) return null;
  try {
    const telerace = await startTelerace({ ...BENCH_SERVER_ENV, ...database.env });
    try {
      await createFleet(telerace.url, await logInAdmin(telerace.url), CARS);
      const headers = { authorization: `Bearer ${await signUpMember(telerace.url)}` };
      const routes = await Promise.all(PATHS.map((path) => captureRoute(telerace.url, path, headers)));
      const bare = await startBareRoutes(routes);
      try {
        const results: PathResult[] = [];
        for (const { path, body } of routes) {
          const load = { headers, connections: CONNECTIONS, seconds: SECONDS };
          // Both servers warmed up on the path first (JIT, pools, the start-up's own work): the
          // steady state is what every visitor's poll meets.
          for (const url of [bare.url, telerace.url])
            await measureHttp({ ...load, seconds: WARM_UP_SECONDS, url: `${url}${path}` });
          results.push({
            path,
            bytes: Buffer.byteLength(body),
            bare: await measureHttp({ ...load, url: `${bare.url}${path}` }),
            telerace: await measureHttp({ ...load, url: `${telerace.url}${path}` }),
          });
        }
        return results;
      } finally {
        await bare.stop();
      }
    } finally {
      await telerace.stop();
    }
  } finally {
    await database.drop();
  }
}

const PROXY_PATHS = ['/api/cars', '/api/me'] as const;

interface ProxyResult {
  path: string;
  bytes: number;
  /** One instance without nginx: what the proxy hop costs. */
  direct: HttpMeasure;
  one: HttpMeasure;
  two: HttpMeasure;
}

/** The member reads through nginx in front of one and of two instances, or why not. */
async function behindProxy(): Promise<ProxyResult[] | string> {
  if (process.env.HTTP_PROXY_CASE === '0') return 'skipped: HTTP_PROXY_CASE=0';
  const nginx = findNginx();
  if (!nginx) {
    console.warn('nginx is not installed (apt-get install nginx-light): the proxy case is skipped');
    return 'skipped: nginx not installed';
  }
  const instances = await startInstances(2);
  if (!instances) return 'skipped: PostgreSQL or Redis unavailable';
  try {
    const [a, b] = instances.servers;
    if (!a || !b) throw new Error('two instances expected');
    const port = (url: string) => Number(new URL(url).port);
    await createFleet(a.url, await logInAdmin(a.url), CARS);
    const headers = { authorization: `Bearer ${await signUpMember(a.url)}` };
    const one = await startNginx(nginx, [port(a.url)]);
    const two = await startNginx(nginx, [port(a.url), port(b.url)]);
    try {
      const load = { headers, connections: CONNECTIONS, seconds: SECONDS };
      // Both instances warmed up on every path first (JIT, pools): B has served nothing yet.
      for (const path of PROXY_PATHS)
        await measureHttp({ ...load, seconds: WARM_UP_SECONDS, url: `${two.url}${path}` });
      const results: ProxyResult[] = [];
      for (const path of PROXY_PATHS) {
        // Through the two-instance proxy once: it answers, and the body's size for the table.
        const { body } = await captureRoute(two.url, path, headers);
        results.push({
          path,
          bytes: Buffer.byteLength(body),
          direct: await measureHttp({ ...load, url: `${a.url}${path}` }),
          one: await measureHttp({ ...load, url: `${one.url}${path}` }),
          two: await measureHttp({ ...load, url: `${two.url}${path}` }),
        });
      }
      return results;
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  } finally {
    await instances.stop();
  }
}

const proxyRow = (server: string, result: ProxyResult, m: HttpMeasure, ratio: number | ''): Row => ({
  server,
  path: `${result.path} (${result.bytes} B)`,
  'req/s': round(m.rps),
  'p50 ms': m.p50,
  'p99 ms': m.p99,
  'errors/non-2xx': m.errors,
  'ratio 2/1': ratio,
});

/** Prints the proxy case and returns it for the JSON. */
function proxyResult(measured: ProxyResult[]): Record<string, unknown> {
  const rows: Row[] = [];
  const perPath: Record<string, unknown> = {};
  const json = (m: HttpMeasure) => ({ rps: round(m.rps), p50_ms: m.p50, p99_ms: m.p99, errors: m.errors });
  for (const measure of measured) {
    const ratio = round(measure.two.rps / measure.one.rps, 3);
    rows.push(
      proxyRow('1 instance, direct', measure, measure.direct, ''),
      proxyRow('nginx → 1 instance', measure, measure.one, ''),
      proxyRow('nginx → 2 instances', measure, measure.two, ratio),
    );
    perPath[measure.path] = {
      body_bytes: measure.bytes,
      one_instance_direct: json(measure.direct),
      nginx_one_instance: json(measure.one),
      nginx_two_instances: json(measure.two),
      ratio_two_to_one: ratio,
    };
  }
  printTable(
    `PostgreSQL + Redis behind the example nginx: member reads, ${CONNECTIONS} connections, ${SECONDS} s each (ratio = 2 instances / 1 instance req/s)`,
    rows,
  );
  return perPath;
}

const row = (server: string, result: PathResult, m: HttpMeasure, ratio: number | ''): Row => ({
  server,
  path: `${result.path} (${result.bytes} B)`,
  'req/s': round(m.rps),
  'p50 ms': m.p50,
  'p99 ms': m.p99,
  'errors/non-2xx': m.errors,
  'ratio to bare': ratio,
});

export async function httpBench(): Promise<void> {
  const result: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, cars: CARS };
  for (const kind of DATABASES) {
    const measured = await onDatabase(kind);
    if (!measured) {
      result[kind] = 'skipped: database unavailable';
      continue;
    }
    const rows: Row[] = [];
    const perPath: Record<string, unknown> = {};
    for (const measure of measured) {
      const { telerace, bare } = measure;
      const ratio = round(telerace.rps / bare.rps, 3);
      rows.push(
        row('bare Fastify, same bytes', measure, bare, ''),
        row(`telerace (${kind})`, measure, telerace, ratio),
      );
      perPath[measure.path] = {
        body_bytes: measure.bytes,
        rps: round(telerace.rps),
        p50_ms: telerace.p50,
        p99_ms: telerace.p99,
        errors: telerace.errors,
        baseline_rps: round(bare.rps),
        baseline_p50_ms: bare.p50,
        baseline_p99_ms: bare.p99,
        baseline_errors: bare.errors,
        ratio_telerace_to_bare: ratio,
      };
    }
    printTable(
      `${kind}: member reads, ${CONNECTIONS} connections, ${SECONDS} s each (ratio = telerace/bare req/s, target ≥ 0.5)`,
      rows,
    );
    result[kind] = perPath;
  }
  const proxied = await behindProxy();
  result.nginx = typeof proxied === 'string' ? proxied : proxyResult(proxied);
  console.info(`written: ${writeResult('http', result)}`);
}
