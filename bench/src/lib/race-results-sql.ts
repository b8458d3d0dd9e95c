/**
 * The races' results made from their laps in SQL (participants' laps, last and best lap, position;
 * each member's best race), as the server would have recorded them: for benches that write many
 * races at once with the server stopped (leaderboards.bench.ts, lib/web-scene.ts).
 */
export const RESULTS_FROM_LAPS = `INSERT INTO race_participants (race_id, user_id, car_id, is_ready, joined_at, last_pass_at, laps, last_lap_ms, best_lap_ms, position)
  SELECT race_id, user_id, car_id, true, min(completed_at) - interval '1 minute', max(completed_at),
         count(*)::int, (array_agg(lap_time_ms ORDER BY lap_number DESC))[1], min(lap_time_ms),
         row_number() OVER (PARTITION BY race_id ORDER BY count(*) DESC, max(completed_at))
  FROM race_laps GROUP BY race_id, user_id, car_id;
INSERT INTO user_race_stats (user_id, best_race_laps, best_race_lap_ms, best_race_id, total_races)
  SELECT DISTINCT ON (user_id) user_id, laps, best_lap_ms, race_id, count(*) OVER (PARTITION BY user_id)
  FROM race_participants ORDER BY user_id, laps DESC, best_lap_ms ASC NULLS LAST, race_id;`;
