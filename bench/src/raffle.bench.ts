/**
 * `npm run bench -- raffle`: what a stream's audience costs the server when it watches a big
 * raffle (issue 23, point 7). An open raffle with 20,000 entries; anonymous visitors read its
 * public answers (the raffle page polls them every 5 s) over 20 connections, with a browser's
 * `Accept-Encoding`, while members change their settings (each change is a `user.changed` fact)
 * at 20 a second, and once more with viewers joining at 10 a second (each join makes the open raffle's
 * answers stale: remade at most once a second). On PGlite and PostgreSQL; next to a bare `node:http` server in the same run
 * answering the same bytes, already compressed, with an ETag — the cheapest a server can be.
 * Target: p95 ≤ 60 ms at 20,000 entries. Reported, not asserted.
 *
 * Options (environment): BENCH_DURATION (10 s), BENCH_CONNECTIONS (20), RAFFLE_ENTRIES (20000),
 * RAFFLE_CHANGES_PER_S (20), RAFFLE_JOINS_PER_S (10), RAFFLE_PATHS (comma-separated, `{id}` is the raffle's id; default the
 * summary, the first entries page and the whole record). An older build (TELERACE_ROOT) that has
 * no such route is measured on `/api/raffles/current` alone: RAFFLE_PATHS=/api/raffles/current.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import autocannon from 'autocannon';
import pg from 'pg';
import { DATABASES, type DatabaseKind, openDatabase } from './lib/databases.js';
import { startScript, startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { percentile } from './lib/stats.js';
import { api, BENCH_SERVER_ENV, logInAdmin, signUpMember } from './lib/telerace-api.js';

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ENTRIES = Number(process.env.RAFFLE_ENTRIES ?? 20_000);
const CHANGES_PER_S = Number(process.env.RAFFLE_CHANGES_PER_S ?? 20);
/** Viewers joining during the last measure of each path (each join remakes the open raffle's answers, at most once a second). */
const JOINS_PER_S = Number(process.env.RAFFLE_JOINS_PER_S ?? 10);
const PATHS = (
  process.env.RAFFLE_PATHS ??
  '/api/raffles/current,/api/raffles/{id}/entries?page=1&limit=25,/api/raffles/{id}/record'
).split(',');
/** What a browser sends. */
const ACCEPT_ENCODING = 'gzip, deflate, br';
const MEMBERS = 20;

interface Measure {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

/** Closed-loop load; every answer's latency kept, so that p95 is exact (autocannon prints no p95). */
async function measure(url: string): Promise<Measure> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: CONNECTIONS, duration: SECONDS, headers: { 'accept-encoding': ACCEPT_ENCODING } },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, time) => {
      latencies.push(time);
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    rps: result.requests.average,
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** The bare baseline: each path's bytes, compressed once (brotli, as the server for a browser), with an ETag. */
const BARE = `
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
const routes = new Map(JSON.parse(readFileSync(process.env.BARE_ROUTES_FILE, 'utf8')).map((r) => [r.path, {
  br: Buffer.from(r.br, 'base64'), etag: r.etag,
}]));
createServer((req, res) => {
  const route = routes.get(req.url);
  if (!route) { res.writeHead(404); res.end(); return; }
  if (req.headers['if-none-match'] === route.etag) { res.writeHead(304, { etag: route.etag }); res.end(); return; }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'br',
    etag: route.etag, vary: 'accept-encoding' });
  res.end(route.br);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

/**
 * Writes `count` chat entries straight into the raffle's table, with the server stopped: through
 * the API each entry would cost a round trip and a transaction (20,000 take minutes), and the
 * scene is not what is measured.
 */
async function seedEntries(
  kind: DatabaseKind,
  env: Record<string, string>,
  raffleId: number,
  count: number,
): Promise<void> {
  const statement = `insert into raffle_entries (raffle_id, platform, platform_user_id, display_name, entered_at)
    select $1, (array['twitch','youtube','discord'])[1 + i % 3], 'viewer-' || i, 'Viewer ' || i,
           now() + i * interval '1 millisecond'
    from generate_series(0, $2::int - 1) as i`;
  if (kind === 'pglite') {
    const db = new PGlite(join(env.DATA_DIR ?? '', 'db'));
    await db.query(statement, [raffleId, count]);
    await db.close();
    return;
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement, [raffleId, count]);
  } finally {
    await client.end();
  }
}

/** Runs `act` about `perSecond` times a second until stopped; answers how many went through and how many failed. */
function atRate(
  perSecond: number,
  act: (i: number) => Promise<unknown>,
): { stop: () => Promise<{ made: number; failed: number }> } {
  let running = true;
  let made = 0;
  let failed = 0;
  const loop = (async () => {
    for (let i = 0; running && perSecond > 0; i++) {
      const started = Date.now();
      try {
        await act(i);
        made++;
      } catch {
        failed++;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / perSecond - (Date.now() - started))));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { made, failed };
    },
  };
}

/** Members switching their theme back and forth, CHANGES_PER_S in all (one after another), until stopped. */
function changeSettings(
  base: string,
  tokens: string[],
): { stop: () => Promise<{ made: number; failed: number }> } {
  return atRate(CHANGES_PER_S, (i) =>
    api(base, '/me/theme', {
      method: 'PATCH',
      token: tokens[i % tokens.length],
      body: { preferred_theme: Math.floor(i / tokens.length) % 2 === 0 ? 'light' : 'dark' },
    }),
  );
}

interface PathResult {
  path: string;
  bytes: number;
  telerace: Measure;
  /** With viewers joining at JOINS_PER_S as well. */
  teleraceJoins: Measure;
  bare: Measure;
}

async function onDatabase(kind: DatabaseKind): Promise<{ results: PathResult[]; sceneS: number } | null> {
  const database = await openDatabase(kind);
  if (!database) return null;
  const dataDir = mkdtempSync(join(tmpdir(), 'telerace-bench-raffle-'));
  const env = { ...BENCH_SERVER_ENV, ...database.env, DATA_DIR: dataDir };
  try {
    // The raffle is opened through the API, its entries written with the server stopped.
    const first = await startTelerace(env);
    const started = Date.now();
    let raffleId: number;
    try {
      const { raffle } = await api<{ raffle: { id: number } }>(first.url, '/admin/race/start-raffle', {
        method: 'POST',
        token: await logInAdmin(first.url),
        body: { racers: 2 },
      });
      raffleId = raffle.id;
    } finally {
      await first.stop();
    }
    await seedEntries(kind, env, raffleId, ENTRIES);
    const sceneS = round((Date.now() - started) / 1000, 1);
    const telerace = await startTelerace(env);
    try {
      const admin = await logInAdmin(telerace.url);
      let joined = 0;
      const viewerJoins = () =>
        api(telerace.url, '/admin/race/raffle-entries', {
          method: 'POST',
          token: admin,
          body: {
            platform: 'discord',
            platformUserId: `joiner-${joined}`,
            displayName: `Joiner ${joined++}`,
          },
        });
      const members: string[] = [];
      for (let i = 0; i < MEMBERS; i++) members.push(await signUpMember(telerace.url));
      const paths = PATHS.map((p) => p.replaceAll('{id}', String(raffleId)));
      const captured = await Promise.all(
        paths.map(async (path) => {
          const res = await fetch(`${telerace.url}${path}`);
          if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
          const body = Buffer.from(await res.arrayBuffer());
          // Brotli at the server's quality: what a browser's Accept-Encoding gets from both.
          const br = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } });
          return { path, bytes: body.length, br: br.toString('base64'), etag: `"${body.length}"` };
        }),
      );
      // A file, not the environment: a record of 20,000 entries is larger than execve allows.
      const routesFile = join(dataDir, 'bare-routes.json');
      writeFileSync(routesFile, JSON.stringify(captured));
      const bare = await startScript(BARE, null, { BARE_ROUTES_FILE: routesFile });
      try {
        const results: PathResult[] = [];
        for (const { path, bytes } of captured) {
          // Warm both up (JIT, the first answer's preparation), then measure under the changes.
          await measure(`${bare.url}${path}`);
          const changes = changeSettings(telerace.url, members);
          await measure(`${telerace.url}${path}`);
          const bareMeasure = await measure(`${bare.url}${path}`);
          const teleraceMeasure = await measure(`${telerace.url}${path}`);
          const joins = atRate(JOINS_PER_S, viewerJoins);
          const teleraceJoins = await measure(`${telerace.url}${path}`);
          const joinsMade = await joins.stop();
          const { made, failed } = await changes.stop();
          console.info(
            `${kind} ${path}: ${made} settings changes (${failed} failed), ${joinsMade.made} joins (${joinsMade.failed} failed)`,
          );
          results.push({ path, bytes, bare: bareMeasure, telerace: teleraceMeasure, teleraceJoins });
        }
        return { results, sceneS };
      } finally {
        await bare.stop();
      }
    } finally {
      await telerace.stop();
    }
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function raffleBench(): Promise<void> {
  const rows: Row[] = [];
  const written: Record<string, unknown> = {
    entries: ENTRIES,
    connections: CONNECTIONS,
    seconds: SECONDS,
    changes_per_s: CHANGES_PER_S,
  };
  for (const kind of DATABASES) {
    const outcome = await onDatabase(kind);
    if (!outcome) continue;
    written[kind] = outcome;
    for (const { path, bytes, telerace, teleraceJoins, bare } of outcome.results) {
      for (const [server, m] of [
        ['bare', bare],
        ['telerace', telerace],
        [`telerace, ${JOINS_PER_S} joins/s`, teleraceJoins],
      ] as const) {
        rows.push({
          database: kind,
          path: path.replace(/\/\d+\//, '/{id}/'),
          server,
          'KB raw': round(bytes / 1024, 1),
          'req/s': round(m.rps),
          'p50 ms': m.p50,
          'p95 ms': m.p95,
          'p99 ms': m.p99,
          errors: m.errors,
        });
      }
    }
    console.info(`${kind}: ${ENTRIES} entries written in ${outcome.sceneS} s`);
  }
  printTable(
    `Public raffle answers, ${ENTRIES} entries, ${CONNECTIONS} connections × ${SECONDS} s, ${CHANGES_PER_S} settings changes/s`,
    rows,
  );
  console.info(`written: ${writeResult('raffle', written)}`);
}
