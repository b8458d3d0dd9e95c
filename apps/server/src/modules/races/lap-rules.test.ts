import { PASS_FUTURE_TOLERANCE_MS, PASS_MAX_AGE_MS } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { applyPass, judgePass, liveLeaderboard, type Standing } from './lap-rules.js';

const NOW = 10_000_000;
const MIN_LAP = 3_000;
const fresh = (overrides: Partial<Standing> = {}): Standing => ({
  userId: 1,
  carId: 10,
  name: 'alice',
  lastPassAt: null,
  laps: 0,
  lastLapMs: null,
  bestLapMs: null,
  order: 0,
  ...overrides,
});

describe('which passes count', () => {
  it('ignores a pass dated before the race went active', () => {
    expect(judgePass('active', fresh(), NOW - 1, NOW, MIN_LAP, NOW)).toEqual({
      counts: false,
      why: 'before_start',
    });
    expect(judgePass('active', fresh(), NOW, NOW, MIN_LAP, NOW).counts).toBe(true);
  });

  it('only during an active race, only for a car in it', () => {
    for (const status of ['idle', 'lobby', 'countdown', 'finishing'] as const)
      expect(judgePass(status, fresh(), NOW, NOW, MIN_LAP, 0)).toEqual({ counts: false, why: 'not_active' });
    expect(judgePass('active', undefined, NOW, NOW, MIN_LAP, 0)).toEqual({
      counts: false,
      why: 'not_in_race',
    });
  });

  it('the first pass starts the first lap; the next completes it', () => {
    const first = judgePass('active', fresh(), NOW, NOW, MIN_LAP, 0);
    expect(first).toEqual({ counts: true, lap: null });
    const started = applyPass(fresh(), NOW, first);
    expect(started).toMatchObject({ lastPassAt: NOW, laps: 0 });
    const second = judgePass('active', started, NOW + 12_340, NOW + 12_340, MIN_LAP, 0);
    expect(second).toEqual({ counts: true, lap: { lapNumber: 1, lapTimeMs: 12_340 } });
    expect(applyPass(started, NOW + 12_340, second)).toMatchObject({
      laps: 1,
      lastLapMs: 12_340,
      bestLapMs: 12_340,
      lastPassAt: NOW + 12_340,
    });
  });

  it('ignores passes from the future beyond the tolerance and older than the maximum age', () => {
    expect(judgePass('active', fresh(), NOW + PASS_FUTURE_TOLERANCE_MS, NOW, MIN_LAP, 0).counts).toBe(true);
    expect(judgePass('active', fresh(), NOW + PASS_FUTURE_TOLERANCE_MS + 1, NOW, MIN_LAP, 0)).toEqual({
      counts: false,
      why: 'future',
    });
    expect(judgePass('active', fresh(), NOW - PASS_MAX_AGE_MS, NOW, MIN_LAP, 0).counts).toBe(true);
    expect(judgePass('active', fresh(), NOW - PASS_MAX_AGE_MS - 1, NOW, MIN_LAP, 0)).toEqual({
      counts: false,
      why: 'stale',
    });
  });

  it('ignores a pass closer than the minimum lap time to the previous one (and one before it)', () => {
    const started = fresh({ lastPassAt: NOW - 5_000 });
    expect(judgePass('active', started, NOW - 5_000 + MIN_LAP - 1, NOW, MIN_LAP, 0)).toEqual({
      counts: false,
      why: 'too_soon',
    });
    expect(judgePass('active', started, NOW - 6_000, NOW, MIN_LAP, 0).counts).toBe(false);
    expect(judgePass('active', started, NOW - 5_000 + MIN_LAP, NOW, MIN_LAP, 0)).toEqual({
      counts: true,
      lap: { lapNumber: 1, lapTimeMs: MIN_LAP },
    });
  });

  it('keeps the best lap and the last lap apart', () => {
    let standing = fresh({ lastPassAt: 0 });
    for (const at of [10_000, 18_000, 30_000]) {
      standing = applyPass(standing, at, judgePass('active', standing, at, at, MIN_LAP, 0));
    }
    expect(standing).toMatchObject({ laps: 3, lastLapMs: 12_000, bestLapMs: 8_000 });
  });

  it('an ignored pass changes nothing', () => {
    const standing = fresh({ lastPassAt: NOW });
    expect(applyPass(standing, NOW + 1, { counts: false, why: 'too_soon' })).toBe(standing);
  });
});

describe('live leaderboard order', () => {
  it('most laps first; equal laps: who completed the last lap first; no laps: join order', () => {
    const rows = liveLeaderboard([
      fresh({ userId: 1, name: 'a', order: 0 }),
      fresh({
        userId: 2,
        name: 'b',
        laps: 2,
        lastPassAt: 50_000,
        lastLapMs: 20_000,
        bestLapMs: 19_000,
        order: 1,
      }),
      fresh({
        userId: 3,
        name: 'c',
        laps: 3,
        lastPassAt: 70_000,
        lastLapMs: 21_000,
        bestLapMs: 20_000,
        order: 2,
      }),
      fresh({
        userId: 4,
        name: 'd',
        laps: 2,
        lastPassAt: 45_000,
        lastLapMs: 22_000,
        bestLapMs: 21_000,
        order: 3,
      }),
      fresh({ userId: 5, name: 'e', lastPassAt: 1_000, order: 4 }),
    ]);
    expect(rows.map((row) => [row.pos, row.name, row.laps])).toEqual([
      [1, 'c', 3],
      [2, 'd', 2],
      [3, 'b', 2],
      [4, 'a', 0],
      [5, 'e', 0],
    ]);
    expect(rows[0]).toEqual({
      pos: 1,
      name: 'c',
      laps: 3,
      last_lap: 21_000,
      best_lap: 20_000,
      user_id: 3,
      car_id: 10,
    });
  });

  it('an empty race has an empty leaderboard', () => {
    expect(liveLeaderboard([])).toEqual([]);
  });
});
