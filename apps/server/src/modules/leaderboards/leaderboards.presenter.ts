/** Leaderboard, race history and race rows as the protocol shapes them (times in ms, dates ISO). */
import {
  type LastRace,
  type LeaderboardRow,
  RACE_END_REASONS,
  type RaceDetail,
  type RaceHistoryRow,
} from '@telerace/protocol';
import type {
  FinishedRace,
  HistoryEntry,
  LapRow,
  LeaderboardEntry,
  RaceResult,
} from './leaderboards.repo.js';

export function presentLeaderboardRow(entry: LeaderboardEntry): LeaderboardRow {
  return {
    user_id: entry.userId,
    username: entry.username,
    avatar_url: entry.avatarUrl,
    best_race_laps: entry.bestRaceLaps,
    best_race_lap_time: entry.bestRaceLapMs,
    total_races: entry.totalRaces,
  };
}

export function presentHistoryRow(entry: HistoryEntry): RaceHistoryRow {
  return {
    race_id: entry.raceId,
    race_finished_at: entry.finishedAt.toISOString(),
    total_laps: entry.laps,
    best_lap_time_ms: entry.bestLapMs,
  };
}

/** The race with its participants in the given order, each with their own laps (already in lap order). */
export function presentRaceDetail(race: FinishedRace, results: RaceResult[], laps: LapRow[]): RaceDetail {
  const lapsByMember = new Map<number, RaceDetail['participants'][number]['laps']>();
  for (const lap of laps) {
    const list = lapsByMember.get(lap.userId) ?? [];
    list.push({
      lap_number: lap.lapNumber,
      lap_time_ms: lap.lapTimeMs,
      completed_at: lap.completedAt.toISOString(),
    });
    lapsByMember.set(lap.userId, list);
  }
  return {
    id: race.id,
    started_at: race.startedAt?.toISOString() ?? null,
    finished_at: race.finishedAt.toISOString(),
    participants: results.map((result) => ({
      position: result.position,
      user_id: result.userId,
      username: result.username,
      avatar_url: result.avatarUrl,
      car_id: result.carId,
      car_name: result.carName,
      total_laps: result.laps,
      best_lap_time_ms: result.bestLapMs,
      laps: lapsByMember.get(result.userId) ?? [],
    })),
  };
}

/** How many places a podium has. */
const PODIUM_PLACES = 3;

/** The member's result in their last race, with the race's podium (results in position order). */
export function presentLastRace(entry: HistoryEntry, userId: number, results: RaceResult[]): LastRace {
  const own = results.find((result) => result.userId === userId);
  const reason = RACE_END_REASONS.find((known) => known === entry.endReason) ?? null;
  return {
    race_id: entry.raceId,
    finished_at: entry.finishedAt.toISOString(),
    end_reason: reason,
    position: own?.position ?? null,
    total_laps: entry.laps,
    best_lap_time_ms: entry.bestLapMs,
    drivers: results.length,
    podium: results
      .filter((result) => result.position !== null && result.position <= PODIUM_PLACES)
      .map((result) => ({
        position: result.position as number,
        user_id: result.userId,
        username: result.username,
        avatar_url: result.avatarUrl,
        total_laps: result.laps,
        best_lap_time_ms: result.bestLapMs,
      })),
  };
}
