/**
 * Leaderboards, race history and a race's page through the real API on a real database. Finished
 * races are written the way the race engine writes them (one transaction: the race, its
 * participants' results, the laps, `recordRaceInStats`), then `race.finished` is emitted.
 */
import {
  ERROR_KEYS,
  LastRaceResponse,
  type LeaderboardResponse,
  type LeaderboardRow,
  RaceDetail,
  RaceHistoryResponse,
} from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import { cars, raceLaps, raceParticipants, races, seasons, users } from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildUser } from '../../test/factories.js';
import { recordRaceInStats } from './user-race-stats.repo.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let db: Db;
const T0 = Date.parse('2031-05-01T12:00:00.000Z');
const HOUR = 3_600_000;
let carIds: number[] = [];

interface Entry {
  user: UserRow;
  /** Each completed lap's time, in order. */
  lapTimes: number[];
  /** A state the engine's columns allow but `lapTimes` cannot say (a lap without a time). */
  override?: { laps: number; bestLapMs: number | null };
}

/**
 * Writes a finished race as the engine does and announces it. Positions: most laps first, then the
 * earliest last lap. Returns the race id.
 */
async function finishRace(
  finishedAt: number,
  entries: Entry[],
  options: { announce?: boolean; endReason?: string } = {},
): Promise<number> {
  const startedAt = finishedAt - 10 * 60_000;
  const results = entries.map((entry, index) => {
    const completed = entry.lapTimes.map((_, lap) =>
      entry.lapTimes.slice(0, lap + 1).reduce((sum, ms) => sum + ms, startedAt),
    );
    return {
      entry,
      carId: carIds[index] as number,
      laps: entry.override?.laps ?? entry.lapTimes.length,
      bestLapMs:
        entry.override !== undefined
          ? entry.override.bestLapMs
          : entry.lapTimes.length > 0
            ? Math.min(...entry.lapTimes)
            : null,
      completed,
      lastAt: completed.at(-1) ?? Number.POSITIVE_INFINITY,
    };
  });
  const byPosition = [...results].sort((a, b) => b.laps - a.laps || a.lastAt - b.lastAt);
  const raceId = await db.transaction(async (tx) => {
    const [race] = await tx
      .insert(races)
      .values({
        status: 'finished',
        createdAt: new Date(startedAt - 60_000),
        startedAt: new Date(startedAt),
        expiresAt: new Date(finishedAt),
        finishedAt: new Date(finishedAt),
        endReason: options.endReason ?? 'expired',
        minLapMs: 3000,
      })
      .returning({ id: races.id });
    if (!race) throw new Error('no race inserted');
    for (const result of results) {
      await tx.insert(raceParticipants).values({
        raceId: race.id,
        userId: result.entry.user.id,
        carId: result.carId,
        isReady: true,
        joinedAt: new Date(startedAt - 60_000),
        laps: result.laps,
        bestLapMs: result.bestLapMs,
        lastLapMs: result.entry.lapTimes.at(-1) ?? null,
        position: byPosition.indexOf(result) + 1,
      });
      if (result.entry.lapTimes.length > 0) {
        await tx.insert(raceLaps).values(
          result.entry.lapTimes.map((ms, lap) => ({
            raceId: race.id,
            userId: result.entry.user.id,
            carId: result.carId,
            lapNumber: lap + 1,
            lapTimeMs: ms,
            completedAt: new Date(result.completed[lap] as number),
          })),
        );
      }
    }
    await recordRaceInStats(tx, race.id);
    return race.id;
  });
  if (options.announce !== false) announce(raceId, finishedAt, entries);
  return raceId;
}

function announce(raceId: number, finishedAt: number, entries: Entry[]): void {
  testApp.app.events.emit('race.finished', {
    raceId,
    finishedAt: new Date(finishedAt).toISOString(),
    reason: 'expired',
    userIds: entries.map((entry) => entry.user.id),
  });
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await testApp.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, body: response.json() as unknown };
}

async function board(url: string): Promise<LeaderboardResponse> {
  const { status, body } = await get(url);
  expect(status, JSON.stringify(body)).toBe(200);
  return body as LeaderboardResponse;
}

const summary = (rows: LeaderboardRow[]) =>
  rows.map((row) => [row.user_id, row.best_race_laps, row.best_race_lap_time, row.total_races]);

let a: UserRow;
let b: UserRow;
let c: UserRow;
let d: UserRow;
let e: UserRow;
let g: UserRow;
let h: UserRow;
const raceIds: number[] = [];

beforeAll(async () => {
  testApp = await startTestApp();
  db = testApp.app.database.db;
  const inserted = await db
    .insert(cars)
    .values(
      Array.from({ length: 12 }, (_, i) => ({ name: `Racer ${i + 1}`, secretHash: `not-a-secret-${i}` })),
    )
    .returning({ id: cars.id });
  carIds = inserted.map((car) => car.id);
  // Created in this order: ids increase a → h (the last tie-break).
  a = await buildUser(db);
  b = await buildUser(db);
  c = await buildUser(db);
  d = await buildUser(db);
  e = await buildUser(db);
  g = await buildUser(db, { avatarUrl: 'https://example.test/g.png' });
  h = await buildUser(db);
});
afterAll(() => testApp.close());

describe('leaderboards', () => {
  it('is empty before the first race, for anyone (no sign-in)', async () => {
    expect(await board('/api/leaderboards/all-time')).toEqual({ data: [], totalCount: 0 });
    expect(await board('/api/leaderboards/season/0')).toEqual({ data: [], totalCount: 0 });
  });

  it('ranks by the best race: laps, then best lap (none last), then member; counts every race', async () => {
    raceIds.push(
      await finishRace(T0 + HOUR, [
        { user: a, lapTimes: [10_000, 9_000, 9_500] },
        { user: b, lapTimes: [8_000, 8_500, 9_000] },
        { user: c, lapTimes: [] },
      ]),
    );
    raceIds.push(
      await finishRace(T0 + 2 * HOUR, [
        // Fewer laps, even faster ones, do not replace a's best race.
        { user: a, lapTimes: [7_000, 7_000] },
        { user: d, lapTimes: [9_000, 9_000, 9_000] },
        { user: c, lapTimes: [] },
        { user: e, lapTimes: [20_000] },
      ]),
    );
    raceIds.push(
      await finishRace(T0 + 3 * HOUR, [
        // As many laps and a better best lap: replaces a's best race.
        { user: a, lapTimes: [9_500, 8_800, 9_000] },
        { user: h, lapTimes: [9_000, 9_100, 9_200] },
        { user: c, lapTimes: [] },
        { user: g, lapTimes: [], override: { laps: 1, bestLapMs: null } },
      ]),
    );

    const expected = [
      [b.id, 3, 8_000, 1],
      [a.id, 3, 8_800, 3],
      // d and h tie on laps and best lap: the member id decides.
      [d.id, 3, 9_000, 1],
      [h.id, 3, 9_000, 1],
      [e.id, 1, 20_000, 1],
      // A best race with laps but no lap time comes after those with one.
      [g.id, 1, null, 1],
      [c.id, 0, null, 3],
    ];
    const allTime = await board('/api/leaderboards/all-time');
    expect(allTime.totalCount).toBe(7);
    expect(summary(allTime.data)).toEqual(expected);
    expect(allTime.data.find((row) => row.user_id === g.id)).toMatchObject({
      username: g.username,
      avatar_url: 'https://example.test/g.png',
    });
    // Season 0 is every race: the same board.
    expect(await board('/api/leaderboards/season/0')).toEqual(allTime);
    // Further pages read the database in the same order.
    expect(summary((await board('/api/leaderboards/all-time?page=1&limit=25')).data)).toEqual(expected);
    expect(await board('/api/leaderboards/all-time?page=2&limit=10')).toEqual({ data: [], totalCount: 7 });
  });

  it('pages in 10, 25, 50 or 100 rows and refuses any other size or page', async () => {
    const more: Entry[] = [];
    for (let i = 0; i < 8; i++) more.push({ user: await buildUser(db), lapTimes: [15_000 + i] });
    raceIds.push(await finishRace(T0 + 4 * HOUR, more));

    const all = await board('/api/leaderboards/all-time?limit=100');
    expect(all.totalCount).toBe(15);
    expect(all.data).toHaveLength(15);
    const first = await board('/api/leaderboards/all-time');
    const second = await board('/api/leaderboards/all-time?page=2');
    expect(first.data).toHaveLength(10);
    expect(second).toEqual({ data: all.data.slice(10), totalCount: 15 });
    expect([...first.data, ...second.data]).toEqual(all.data);
    expect((await board('/api/leaderboards/season/0?page=2&limit=10')).data).toEqual(all.data.slice(10));
    for (const limit of [10, 25, 50, 100]) {
      expect((await board(`/api/leaderboards/all-time?limit=${limit}`)).data).toEqual(
        all.data.slice(0, limit),
      );
    }

    const member = await authHeader(testApp.app, a);
    for (const url of [
      '/api/leaderboards/all-time?limit=20',
      '/api/leaderboards/all-time?limit=abc',
      '/api/leaderboards/all-time?page=0',
      '/api/leaderboards/season/0?limit=5',
      '/api/leaderboards/season/-1',
      '/api/me/race-history?limit=1000',
      '/api/races/abc',
    ]) {
      const { status, body } = await get(url, member);
      expect(status, url).toBe(400);
      expect(body, url).toMatchObject({ errorKey: ERROR_KEYS.validation });
    }
  });

  it('answers a dated season from the races finished within [starts_at, ends_at); an unknown one is 404', async () => {
    await db.insert(seasons).values([
      // Only the second race (T0 + 2 h) finished in season 1; season 2 is open-ended from T0 + 3 h.
      { id: 1, name: 'Season 1', startsAt: new Date(T0 + 1.5 * HOUR), endsAt: new Date(T0 + 2.5 * HOUR) },
      { id: 2, name: 'Season 2', startsAt: new Date(T0 + 3 * HOUR), endsAt: null },
      // Bounds are half-open: a race finished exactly at ends_at belongs to the next season.
      { id: 3, name: 'Season 3', startsAt: new Date(T0), endsAt: new Date(T0 + HOUR) },
    ]);
    const season1 = await board('/api/leaderboards/season/1');
    expect(season1.totalCount).toBe(4);
    expect(summary(season1.data)).toEqual([
      [d.id, 3, 9_000, 1],
      [a.id, 2, 7_000, 1],
      [e.id, 1, 20_000, 1],
      [c.id, 0, null, 1],
    ]);
    const season2 = await board('/api/leaderboards/season/2?limit=25');
    expect(season2.totalCount).toBe(12);
    expect(summary(season2.data).slice(0, 2)).toEqual([
      [a.id, 3, 8_800, 1],
      [h.id, 3, 9_000, 1],
    ]);
    expect(await board('/api/leaderboards/season/2?page=2&limit=10')).toMatchObject({ totalCount: 12 });
    expect(await board('/api/leaderboards/season/3')).toEqual({ data: [], totalCount: 0 });

    const unknown = await get('/api/leaderboards/season/99');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorKey: ERROR_KEYS.seasonNotFound });
  });

  it('keeps the first pages in memory until a race finishes', async () => {
    const pages = testApp.app.leaderboards.firstPages;
    const before = await board('/api/leaderboards/all-time');
    const answered = pages.stats.answered;
    expect(await board('/api/leaderboards/all-time')).toEqual(before);
    expect(await board('/api/leaderboards/season/0')).toEqual(before);
    expect(pages.stats.answered).toBe(answered + 2);

    // Written but not yet announced: memory still answers the board as it was.
    const newcomer = await buildUser(db);
    const entries = [{ user: newcomer, lapTimes: [5_000, 5_000, 5_000, 5_000] }];
    const raceId = await finishRace(T0 + 5 * HOUR, entries, { announce: false });
    raceIds.push(raceId);
    expect(await board('/api/leaderboards/all-time')).toEqual(before);
    // A page that is not kept already shows it.
    expect((await board('/api/leaderboards/all-time?page=2')).totalCount).toBe(16);

    announce(raceId, T0 + 5 * HOUR, entries);
    const after = await board('/api/leaderboards/all-time');
    expect(after.totalCount).toBe(16);
    expect(after.data[0]).toMatchObject({
      user_id: newcomer.id,
      best_race_laps: 4,
      best_race_lap_time: 5_000,
    });
    expect(await board('/api/leaderboards/season/0?limit=25')).toMatchObject({ totalCount: 16 });
  });

  it("shows a member's new name and avatar, and a deleted member's scrubbed row, after user.changed", async () => {
    await db
      .update(users)
      .set({ username: 'Renamed#1234', avatarUrl: 'https://example.test/new.png' })
      .where(eq(users.id, b.id));
    testApp.app.events.emit('user.changed', { userId: b.id, username: 'Renamed#1234' });
    const renamed = (await board('/api/leaderboards/all-time')).data.find((row) => row.user_id === b.id);
    expect(renamed).toMatchObject({ username: 'Renamed#1234', avatar_url: 'https://example.test/new.png' });

    await db
      .update(users)
      .set({ username: `deleted-${d.id}`, email: null, avatarUrl: null, deletedAt: new Date() })
      .where(eq(users.id, d.id));
    testApp.app.events.emit('user.changed', { userId: d.id, username: `deleted-${d.id}` });
    const deleted = (await board('/api/leaderboards/all-time')).data.find((row) => row.user_id === d.id);
    expect(deleted).toMatchObject({ username: `deleted-${d.id}`, avatar_url: null, best_race_laps: 3 });
  });
});

describe('race history', () => {
  it("lists only the caller's finished races, newest first, and pages", async () => {
    const { status, body } = await get('/api/me/race-history', await authHeader(testApp.app, a));
    expect(status).toBe(200);
    const history = RaceHistoryResponse.parse(body);
    expect(history).toEqual({
      totalCount: 3,
      data: [
        {
          race_id: raceIds[2],
          race_finished_at: new Date(T0 + 3 * HOUR).toISOString(),
          total_laps: 3,
          best_lap_time_ms: 8_800,
        },
        {
          race_id: raceIds[1],
          race_finished_at: new Date(T0 + 2 * HOUR).toISOString(),
          total_laps: 2,
          best_lap_time_ms: 7_000,
        },
        {
          race_id: raceIds[0],
          race_finished_at: new Date(T0 + HOUR).toISOString(),
          total_laps: 3,
          best_lap_time_ms: 9_000,
        },
      ],
    });
    const zeroLaps = await get('/api/me/race-history?limit=25', await authHeader(testApp.app, c));
    expect(zeroLaps.body).toMatchObject({
      totalCount: 3,
      data: [{ total_laps: 0, best_lap_time_ms: null }, {}, {}],
    });
    const paged = await get('/api/me/race-history?page=2&limit=10', await authHeader(testApp.app, a));
    expect(paged.body).toEqual({ data: [], totalCount: 3 });
    const newcomer = await get('/api/me/race-history', await authHeader(testApp.app, await buildUser(db)));
    expect(newcomer.body).toEqual({ data: [], totalCount: 0 });
  });

  it('needs a signed-in member', async () => {
    const { status, body } = await get('/api/me/race-history');
    expect(status).toBe(401);
    expect(body).toMatchObject({ errorKey: ERROR_KEYS.unauthorized });
  });
});

describe('a race page', () => {
  it('shows every participant by position with their laps in order, for anyone', async () => {
    const { status, body } = await get(`/api/races/${raceIds[2]}`);
    expect(status).toBe(200);
    const race = RaceDetail.parse(body);
    expect(race.id).toBe(raceIds[2]);
    expect(race.finished_at).toBe(new Date(T0 + 3 * HOUR).toISOString());
    expect(race.started_at).toBe(new Date(T0 + 3 * HOUR - 10 * 60_000).toISOString());
    // a and h both did 3 laps; a finished them first.
    expect(race.participants.map((p) => [p.position, p.user_id, p.total_laps, p.best_lap_time_ms])).toEqual([
      [1, a.id, 3, 8_800],
      [2, h.id, 3, 9_000],
      [3, g.id, 1, null],
      [4, c.id, 0, null],
    ]);
    const first = race.participants[0];
    expect(first).toMatchObject({ username: a.username, car_id: carIds[0], car_name: 'Racer 1' });
    const start = T0 + 3 * HOUR - 10 * 60_000;
    expect(first?.laps).toEqual([
      { lap_number: 1, lap_time_ms: 9_500, completed_at: new Date(start + 9_500).toISOString() },
      { lap_number: 2, lap_time_ms: 8_800, completed_at: new Date(start + 18_300).toISOString() },
      { lap_number: 3, lap_time_ms: 9_000, completed_at: new Date(start + 27_300).toISOString() },
    ]);
    expect(race.participants[3]?.laps).toEqual([]);
  });

  it('is 404 for an unknown race and for one still running', async () => {
    const [running] = await db
      .insert(races)
      .values({ status: 'active', createdAt: new Date(T0), startedAt: new Date(T0), minLapMs: 3000 })
      .returning({ id: races.id });
    if (!running) throw new Error('no race inserted');
    await db.insert(raceParticipants).values({
      raceId: running.id,
      userId: a.id,
      carId: carIds[0] as number,
      joinedAt: new Date(T0),
      laps: 2,
      bestLapMs: 6_000,
    });
    for (const id of [running.id, 999_999]) {
      const { status, body } = await get(`/api/races/${id}`);
      expect(status, String(id)).toBe(404);
      expect(body).toMatchObject({ errorKey: ERROR_KEYS.raceNotFound });
    }
    // A running race is in nobody's history yet.
    const history = await get('/api/me/race-history', await authHeader(testApp.app, a));
    expect(history.body).toMatchObject({ totalCount: 3 });
  });
});

describe('the last race (issue 41)', () => {
  const lastRace = async (user: UserRow) => {
    const { status, body } = await get('/api/me/last-race', await authHeader(testApp.app, user));
    expect(status, JSON.stringify(body)).toBe(200);
    return LastRaceResponse.parse(body).race;
  };

  it("gives the caller's newest finished race: their result, how many drove and the podium", async () => {
    // a's newest finished race is the third (a race still running, from the test above, is not one).
    expect(await lastRace(a)).toEqual({
      race_id: raceIds[2],
      finished_at: new Date(T0 + 3 * HOUR).toISOString(),
      end_reason: 'expired',
      position: 1,
      total_laps: 3,
      best_lap_time_ms: 8_800,
      drivers: 4,
      podium: [
        {
          position: 1,
          user_id: a.id,
          username: a.username,
          avatar_url: null,
          total_laps: 3,
          best_lap_time_ms: 8_800,
        },
        {
          position: 2,
          user_id: h.id,
          username: h.username,
          avatar_url: null,
          total_laps: 3,
          best_lap_time_ms: 9_000,
        },
        {
          position: 3,
          user_id: g.id,
          username: g.username,
          avatar_url: 'https://example.test/g.png',
          total_laps: 1,
          best_lap_time_ms: null,
        },
      ],
    });
    // Off the podium, without a lap: the member's own result all the same.
    expect(await lastRace(c)).toMatchObject({
      race_id: raceIds[2],
      position: 4,
      total_laps: 0,
      best_lap_time_ms: null,
      drivers: 4,
    });
    expect((await lastRace(c))?.podium.map((place) => place.user_id)).toEqual([a.id, h.id, g.id]);
    // b raced only the first race: the newer races, without b, are not b's to see.
    expect(await lastRace(b)).toMatchObject({ race_id: raceIds[0], position: 1, drivers: 3 });
  });

  it('says a race ended early by Race Control, and has a shorter podium with fewer drivers', async () => {
    const x = await buildUser(db);
    const y = await buildUser(db);
    const raceId = await finishRace(
      T0 + 6 * HOUR,
      [
        { user: x, lapTimes: [] },
        { user: y, lapTimes: [12_000] },
      ],
      { endReason: 'ended_by_admin' },
    );
    const race = await lastRace(x);
    expect(race).toMatchObject({ race_id: raceId, end_reason: 'ended_by_admin', position: 2, drivers: 2 });
    expect(race?.podium.map((place) => [place.position, place.user_id])).toEqual([
      [1, y.id],
      [2, x.id],
    ]);
  });

  it('is null for a member who never finished a race, and needs a signed-in member', async () => {
    expect(await lastRace(await buildUser(db))).toBeNull();
    const signedOut = await get('/api/me/last-race');
    expect(signedOut.status).toBe(401);
    expect(signedOut.body).toMatchObject({ errorKey: ERROR_KEYS.unauthorized });
  });
});
