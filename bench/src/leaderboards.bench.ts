/**
 * `npm run bench -- leaderboards`: the leaderboards, a member's race history and a race's page
 * with 1,000,000 laps / 50,000 races / 10,000 members, on the embedded PGlite and on PostgreSQL.
 * The data is written in bulk by SQL (generate_series; the per-member summary by one aggregate
 * INSERT … SELECT, as recordRaceInStats would have left it), with the server stopped, then each
 * read is timed one request at a time through real HTTP on the built server. Baselines from the
 * same server in the same run: `GET /api/health` (the HTTP stack alone) and `GET /api/ready` (the
 * stack plus one `SELECT 1` round trip). Target (issue 12): p95 ≤ 20 ms each on PostgreSQL.
 * Options (environment): BENCH_SAMPLES (200 per read).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { DATABASES, type DatabaseKind, openDatabase } from './lib/databases.js';
import { startTelerace } from './lib/processes.js';
import { RESULTS_FROM_LAPS } from './lib/race-results-sql.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { api, BENCH_SERVER_ENV } from './lib/telerace-api.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARM_UP = 20;
const USERS = 10_000;
const RACES = 50_000;
/** Per race; laps per participant cycle 3…7, so 50,000 × 4 × 5 = 1,000,000 laps exactly. */
const PARTICIPANTS = 4;
const MEMBER = { email: 'leaderboards@bench.telerace.test', password: 'bench-driver-Passw0rd!' };

/**
 * The whole data set in a few statements. Members are numbered 0…9,999 in id order (the bench's
 * signed-up member among them); race r's participants are members ((r·4 + k)·7) mod 10,000, so
 * each member races 20 times; lap times are a spread of 8–14 s.
 */
const SEED_SQL = `
INSERT INTO users (username, username_skeleton, terms_accepted_at)
  SELECT 'lb' || g, 'lb' || g, now() FROM generate_series(1, ${USERS - 1}) g;
CREATE TEMP TABLE lb_members AS
  SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id FROM users WHERE NOT is_admin;
CREATE INDEX ON lb_members (n);
INSERT INTO cars (name, secret_hash) SELECT 'Leaderboard car ' || g, 'bench' FROM generate_series(1, ${PARTICIPANTS}) g;
CREATE TEMP TABLE lb_cars AS SELECT (row_number() OVER (ORDER BY id) - 1)::int AS k, id FROM cars WHERE name LIKE 'Leaderboard car %';
INSERT INTO races (id, status, created_at, started_at, expires_at, finished_at, end_reason, min_lap_ms)
  SELECT r, 'finished', t - interval '4 minutes', t - interval '3 minutes', t, t, 'expired', 3000
  FROM (SELECT r, timestamptz '2030-01-01' + r * interval '10 minutes' AS t FROM generate_series(1, ${RACES}) r) s;
SELECT setval(pg_get_serial_sequence('races', 'id'), ${RACES});
INSERT INTO race_laps (race_id, user_id, car_id, lap_number, lap_time_ms, completed_at)
  SELECT p.r, m.id, c.id, lap, 8000 + ((p.r * 31 + p.k * 17 + lap * 7919) % 6000),
         timestamptz '2030-01-01' + p.r * interval '10 minutes' - interval '3 minutes' + lap * interval '12 seconds'
  FROM (SELECT r, k FROM generate_series(1, ${RACES}) r, generate_series(0, ${PARTICIPANTS - 1}) k) p
  JOIN lb_members m ON m.n = ((p.r * ${PARTICIPANTS} + p.k) * 7) % ${USERS}
  JOIN lb_cars c ON c.k = p.k
  CROSS JOIN LATERAL generate_series(1, 3 + (p.r + p.k) % 5) lap;
${RESULTS_FROM_LAPS}
INSERT INTO seasons (id, name, starts_at, ends_at) VALUES (1, 'Bench month', '2030-06-01', '2030-07-01');
ANALYZE;
`;

interface Read {
  name: string;
  path: string;
  auth?: boolean;
}

async function timeRead(
  base: string,
  read: Read,
  token: string,
): Promise<{ p50: number; p95: number; bytes: number }> {
  const headers: Record<string, string> = read.auth ? { authorization: `Bearer ${token}` } : {};
  const once = async () => {
    const started = performance.now();
    const res = await fetch(`${base}${read.path}`, { headers });
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${read.path}: HTTP ${res.status}`);
    return { ms: performance.now() - started, bytes: body.byteLength };
  };
  for (let i = 0; i < WARM_UP; i++) await once();
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const { ms, bytes: size } = await once();
    samples.push(ms);
    bytes = size;
  }
  const { p50, p95 } = summarize(samples);
  return { p50: round(p50), p95: round(p95), bytes };
}

async function logIn(base: string): Promise<string> {
  const { accessToken } = await api<{ accessToken: string }>(base, '/login', {
    method: 'POST',
    body: { ...MEMBER, recaptchaToken: '' },
  });
  return accessToken;
}

async function seed(kind: DatabaseKind, env: Record<string, string>, dataDir: string): Promise<number> {
  const started = performance.now();
  if (kind === 'pglite') {
    const db = new PGlite(join(dataDir, 'db'));
    await db.exec(SEED_SQL);
    await db.close();
  } else {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(SEED_SQL);
    } finally {
      await client.end();
    }
  }
  return round((performance.now() - started) / 1000, 1);
}

async function onDatabase(kind: DatabaseKind): Promise<Record<string, unknown> | null> {
  const database = await openDatabase(kind);
  if (!database) return null;
  const dataDir = mkdtempSync(join(tmpdir(), 'telerace-bench-leaderboards-'));
  const env = { ...BENCH_SERVER_ENV, ...database.env, DATA_DIR: dataDir };
  try {
    // A first start applies the migrations; the member signs up through the API like anyone.
    let server = await startTelerace(env);
    try {
      await api(server.url, '/signup', {
        method: 'POST',
        body: { ...MEMBER, username: 'LeaderboardBench', recaptchaToken: '' },
      });
    } finally {
      await server.stop();
    }
    const seedSeconds = await seed(kind, database.env, dataDir);
    server = await startTelerace(env);
    try {
      const token = await logIn(server.url);
      const reads: Read[] = [
        { name: 'baseline: GET /api/health (HTTP stack)', path: '/api/health' },
        { name: 'baseline: GET /api/ready (stack + SELECT 1)', path: '/api/ready' },
        { name: 'all-time page 1 (memory)', path: '/api/leaderboards/all-time?page=1&limit=10' },
        { name: 'all-time page 2', path: '/api/leaderboards/all-time?page=2&limit=10' },
        { name: 'all-time page 500', path: '/api/leaderboards/all-time?page=500&limit=10' },
        { name: 'season 0 page 1 (memory)', path: '/api/leaderboards/season/0?page=1&limit=10' },
        { name: 'season 1 (dated, one month) page 1', path: '/api/leaderboards/season/1?page=1&limit=10' },
        { name: 'race history page 1', path: '/api/me/race-history?page=1&limit=10', auth: true },
        { name: 'race detail', path: `/api/races/${RACES / 2}` },
      ];
      const measured: Record<string, unknown> = { seed_seconds: seedSeconds };
      const rows: Row[] = [];
      for (const read of reads) {
        const result = await timeRead(server.url, read, token);
        measured[read.name] = {
          path: read.path,
          p50_ms: result.p50,
          p95_ms: result.p95,
          body_bytes: result.bytes,
        };
        rows.push({ read: read.name, 'p50 ms': result.p50, 'p95 ms': result.p95, bytes: result.bytes });
      }
      printTable(
        `${kind}: ${RACES} races, ${RACES * PARTICIPANTS * 5} laps, ${USERS} members (seeded in ${seedSeconds} s); ${SAMPLES} sequential requests each`,
        rows,
      );
      return measured;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

export async function leaderboardsBench(): Promise<void> {
  const result: Record<string, unknown> = {
    races: RACES,
    laps: RACES * PARTICIPANTS * 5,
    members: USERS,
    samples: SAMPLES,
  };
  for (const kind of DATABASES) {
    result[kind] = (await onDatabase(kind)) ?? 'skipped: database unavailable';
  }
  console.info(`written: ${writeResult('leaderboards', result)}`);
}
