/**
 * What the public pages show in `npm run bench -- web`, so that each page is measured with its
 * content, not its empty state: boards with a few hundred drivers, a finished race with laps for
 * the lap chart, and an open raffle with a stream's first entries. Made once in a data folder
 * (the embedded PGlite) that each measured server gets a copy of: a folder belongs to one process.
 *
 * The raffle is opened and entered through the admin API, as an operator and a chat bot do; the
 * races and their laps are written by SQL with the server stopped (a race through the API needs
 * cars driven for minutes), as `npm run bench -- leaderboards` does, and so are the 20,000
 * entries of the big raffle (as `npm run bench -- raffle` does: one round trip each would take
 * minutes, and the scene is not what is measured).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { startTelerace } from './processes.js';
import { RESULTS_FROM_LAPS } from './race-results-sql.js';
import { api, BENCH_SERVER_ENV, logInAdmin } from './telerace-api.js';

const MEMBERS = 240;
const RACES = 60;
const PARTICIPANTS = 4;
/** Entries the raffle has when its page is measured with the others: a stream's first minutes. */
export const FIRST_ENTRIES = 25;
const PLATFORMS = ['twitch', 'youtube', 'discord'] as const;

/**
 * Members, races over the last days (so that the season board shows them too), each with four
 * drivers doing 3–7 laps of 8–14 s, their results and the per-member summary the boards read
 * (as recordRaceInStats leaves it).
 */
const RACES_SQL = `
INSERT INTO users (username, username_skeleton, terms_accepted_at)
  SELECT 'driver_' || g, 'driver_' || g, now() FROM generate_series(1, ${MEMBERS}) g;
CREATE TEMP TABLE web_members AS
  SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id FROM users WHERE NOT is_admin;
INSERT INTO cars (name, secret_hash) SELECT 'Bench car ' || g, 'bench' FROM generate_series(1, ${PARTICIPANTS}) g;
CREATE TEMP TABLE web_cars AS
  SELECT (row_number() OVER (ORDER BY id) - 1)::int AS k, id FROM cars WHERE name LIKE 'Bench car %';
CREATE TEMP TABLE web_races AS
  SELECT r, now() - (${RACES} - r + 1) * interval '1 hour' AS t FROM generate_series(1, ${RACES}) r;
INSERT INTO races (id, status, created_at, started_at, expires_at, finished_at, end_reason, min_lap_ms)
  SELECT r, 'finished', t - interval '4 minutes', t - interval '3 minutes', t, t, 'expired', 3000 FROM web_races;
SELECT setval(pg_get_serial_sequence('races', 'id'), ${RACES});
INSERT INTO race_laps (race_id, user_id, car_id, lap_number, lap_time_ms, completed_at)
  SELECT w.r, m.id, c.id, lap, 8000 + ((w.r * 31 + s.k * 17 + lap * 7919) % 6000),
         w.t - interval '3 minutes' + lap * interval '12 seconds'
  FROM web_races w CROSS JOIN generate_series(0, ${PARTICIPANTS - 1}) s(k)
  JOIN web_members m ON m.n = ((w.r * ${PARTICIPANTS} + s.k) * 7) % ${MEMBERS}
  JOIN web_cars c ON c.k = s.k
  CROSS JOIN LATERAL generate_series(1, 3 + (w.r + s.k) % 5) lap;
${RESULTS_FROM_LAPS}
ANALYZE;
`;

export interface WebScene {
  /** The data folder to copy for each server (`copy`). */
  dir: string;
  /** The last race: four drivers, laps on the boards and in its chart. */
  raceId: number;
  /** The open raffle, with FIRST_ENTRIES entries. */
  raffleId: number;
}

/** The server settings for a copy of a scene's folder (the seeded admin among them). */
export const sceneEnv = (dataDir: string): Record<string, string> => ({
  ...BENCH_SERVER_ENV,
  DATA_DIR: dataDir,
});

/** A fresh folder holding a copy of `dir` (a server's own, removed by the caller). */
export function copyScene(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'telerace-web-scene-copy-'));
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Builds the scene: a first start applies the migrations and takes the API calls. */
export async function makeScene(): Promise<WebScene> {
  const dir = mkdtempSync(join(tmpdir(), 'telerace-web-scene-'));
  const server = await startTelerace(sceneEnv(dir));
  let raffleId: number;
  try {
    const admin = await logInAdmin(server.url);
    const { raffle } = await api<{ raffle: { id: number } }>(server.url, '/admin/race/start-raffle', {
      method: 'POST',
      token: admin,
      body: { racers: 2 },
    });
    raffleId = raffle.id;
    for (let i = 0; i < FIRST_ENTRIES; i++) {
      await api(server.url, '/admin/race/raffle-entries', {
        method: 'POST',
        token: admin,
        body: {
          platform: PLATFORMS[i % PLATFORMS.length],
          platformUserId: `chat-viewer-${i}`,
          displayName: `Chat viewer ${i}`,
        },
      });
    }
  } finally {
    await server.stop();
  }
  const db = new PGlite(join(dir, 'db'));
  try {
    await db.exec(RACES_SQL);
  } finally {
    await db.close();
  }
  return { dir, raceId: RACES, raffleId };
}

/** A copy of the scene whose raffle has `count` more entries (a big stream's). */
export async function withMoreEntries(scene: WebScene, count: number): Promise<string> {
  const dir = copyScene(scene.dir);
  const db = new PGlite(join(dir, 'db'));
  try {
    await db.query(
      `insert into raffle_entries (raffle_id, platform, platform_user_id, display_name, entered_at)
       select $1, (array['twitch','youtube','discord'])[1 + i % 3], 'viewer-' || i, 'Viewer ' || i,
              now() + i * interval '1 millisecond'
       from generate_series(0, $2::int - 1) as i`,
      [scene.raffleId, count],
    );
  } finally {
    await db.close();
  }
  return dir;
}

export function dropScene(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
