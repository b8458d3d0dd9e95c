/**
 * Which finish-line passes count, and the live leaderboard's order (docs/races.md "Lap counting").
 * Pure: the engine passes the race's standing and its clock's now.
 *
 * A race's first pass of a car starts its first lap; each later pass completes a lap. Ignored:
 * passes outside an active race or dated before its start (a decoder's late report of a pass made
 * during the countdown), from the future (beyond a small clock-skew tolerance) or older
 * than PASS_MAX_AGE_MS, and passes closer than the minimum lap time to the car's previous pass
 * (a wheel bouncing on the sensor, a decoder reporting twice).
 */
import {
  type LiveLeaderboardRow,
  PASS_FUTURE_TOLERANCE_MS,
  PASS_MAX_AGE_MS,
  type RaceStatus,
} from '@telerace/protocol';

/** One participant's standing in the running race. */
export interface Standing {
  userId: number;
  carId: number;
  name: string;
  /** The last counted pass, epoch ms; null before the first. */
  lastPassAt: number | null;
  laps: number;
  lastLapMs: number | null;
  bestLapMs: number | null;
  /** Join order, the last tie-break. */
  order: number;
}

export type PassVerdict =
  | { counts: false; why: 'not_active' | 'not_in_race' | 'before_start' | 'future' | 'stale' | 'too_soon' }
  | { counts: true; lap: null }
  | { counts: true; lap: { lapNumber: number; lapTimeMs: number } };

export function judgePass(
  status: RaceStatus,
  standing: Standing | undefined,
  at: number,
  now: number,
  minLapMs: number,
  /** When the race went active (the countdown's end), epoch ms. */
  startedAt: number,
): PassVerdict {
  if (status !== 'active') return { counts: false, why: 'not_active' };
  if (!standing) return { counts: false, why: 'not_in_race' };
  if (at < startedAt) return { counts: false, why: 'before_start' };
  if (at > now + PASS_FUTURE_TOLERANCE_MS) return { counts: false, why: 'future' };
  if (at < now - PASS_MAX_AGE_MS) return { counts: false, why: 'stale' };
  if (standing.lastPassAt === null) return { counts: true, lap: null };
  const lapTimeMs = at - standing.lastPassAt;
  if (lapTimeMs < minLapMs) return { counts: false, why: 'too_soon' };
  return { counts: true, lap: { lapNumber: standing.laps + 1, lapTimeMs } };
}

/** The standing after a counted pass. */
export function applyPass(standing: Standing, at: number, verdict: PassVerdict): Standing {
  if (!verdict.counts) return standing;
  if (verdict.lap === null) return { ...standing, lastPassAt: at };
  const { lapNumber, lapTimeMs } = verdict.lap;
  return {
    ...standing,
    lastPassAt: at,
    laps: lapNumber,
    lastLapMs: lapTimeMs,
    bestLapMs: standing.bestLapMs === null ? lapTimeMs : Math.min(standing.bestLapMs, lapTimeMs),
  };
}

/**
 * Race order: most laps first; on equal laps, whoever completed their last lap first; drivers
 * without a lap keep their join order.
 */
export function compareStandings(a: Standing, b: Standing): number {
  if (a.laps !== b.laps) return b.laps - a.laps;
  if (a.laps > 0 && a.lastPassAt !== b.lastPassAt) return (a.lastPassAt ?? 0) - (b.lastPassAt ?? 0);
  return a.order - b.order;
}

export function liveLeaderboard(standings: Iterable<Standing>): LiveLeaderboardRow[] {
  return [...standings].sort(compareStandings).map((s, index) => ({
    pos: index + 1,
    name: s.name,
    laps: s.laps,
    last_lap: s.lastLapMs,
    best_lap: s.bestLapMs,
    user_id: s.userId,
    car_id: s.carId,
  }));
}
