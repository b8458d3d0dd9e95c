/**
 * The per-member race summary (user_race_stats) the all-time and season-0 leaderboards read:
 * written in the same transaction as a race's results.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { raceParticipants, userRaceStats } from '../../db/schema.js';

/**
 * Whether the incoming race (`excluded`) beats the stored best race: more laps, or as many laps
 * and a best lap that exists and is lower (a race without a complete lap never beats one with).
 */
const beatsStoredBest = sql`(
  excluded.best_race_laps > ${userRaceStats.bestRaceLaps}
  or (excluded.best_race_laps = ${userRaceStats.bestRaceLaps}
      and excluded.best_race_lap_ms is not null
      and (${userRaceStats.bestRaceLapMs} is null or excluded.best_race_lap_ms < ${userRaceStats.bestRaceLapMs})))`;

/**
 * Adds a finished race to its participants' summaries: total_races + 1, and the best race
 * replaced when this one has more laps, or as many laps and a better best lap; a member's first
 * race inserts the row. One statement for every participant. Called once per race, by the engine,
 * inside the transaction that writes the results (a second call would count the race twice).
 */
export async function recordRaceInStats(tx: Db, raceId: number): Promise<void> {
  await tx
    .insert(userRaceStats)
    .select(
      tx
        .select({
          userId: raceParticipants.userId,
          bestRaceLaps: raceParticipants.laps,
          bestRaceLapMs: raceParticipants.bestLapMs,
          bestRaceId: raceParticipants.raceId,
          totalRaces: sql<number>`1`.as('total_races'),
        })
        .from(raceParticipants)
        .where(eq(raceParticipants.raceId, raceId)),
    )
    .onConflictDoUpdate({
      target: userRaceStats.userId,
      set: {
        totalRaces: sql`${userRaceStats.totalRaces} + 1`,
        bestRaceLaps: sql`case when ${beatsStoredBest} then excluded.best_race_laps else ${userRaceStats.bestRaceLaps} end`,
        bestRaceLapMs: sql`case when ${beatsStoredBest} then excluded.best_race_lap_ms else ${userRaceStats.bestRaceLapMs} end`,
        bestRaceId: sql`case when ${beatsStoredBest} then excluded.best_race_id else ${userRaceStats.bestRaceId} end`,
      },
    });
}
