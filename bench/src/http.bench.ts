/**
 * `npm run bench -- http`: the reads every signed-in visitor makes (`GET /api/cars`, polled every
 * 5 s, `GET /api/me`, and the Leaderboards page's `GET /api/leaderboards/all-time`) with a
 * member's token, 50 connections for 10 s each, on the embedded PGlite and on PostgreSQL. Next to each: a bare Fastify in its own process answering the same
 * bytes with the same content type, measured in the same run — the ratio telerace/bare is what the
 * server's own work costs (issue 11's target: ≥ 0.5, 0 errors; reported here, not asserted).
 * Options (environment): BENCH_DURATION (10 s), BENCH_CONNECTIONS (50), BENCH_CARS (10).
 */
import { captureRoute, startBareRoutes } from './lib/bare-route.js';
import { DATABASES, type DatabaseKind, openDatabase } from './lib/databases.js';
import { type HttpMeasure, measureHttp } from './lib/http-load.js';
import { startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { BENCH_SERVER_ENV, createFleet, logInAdmin, signUpMember } from './lib/telerace-api.js';

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CARS = Number(process.env.BENCH_CARS ?? 10);
const PATHS = ['/api/cars', '/api/me', '/api/leaderboards/all-time'] as const;

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
  console.info(`written: ${writeResult('http', result)}`);
}
