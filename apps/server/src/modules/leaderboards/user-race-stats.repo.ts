/**
 * The per-member race summary (user_race_stats) the all-time and season-0 leaderboards read:
 * written in the same transaction as a race's results.
 */
import type { Db } from '../../db/client.js';

/**
 * Adds a finished race to its participants' summaries: total_races + 1, and the best race
 * replaced when this one has more laps, or as many laps and a better best lap.
 */
export async function recordRaceInStats(_tx: Db, _raceId: number): Promise<void> {
  // Filled by the leaderboards work (issue 12).
}
