/**
 * Races (spec §2 Control overlays, Leaderboards, admin Race Control; §3 race state payload, live
 * leaderboard row, leaderboard row, race history row; §4 lobby join, race status, ready flag; §7
 * event channel, /admin/race/*, /leaderboards/*, /me/race-history). The engine is described in
 * docs/races.md.
 */
import { z } from 'zod';
import { LEADERBOARD_DEFAULT_PAGE_SIZE, PAGE_SIZES } from './constants.js';
import { IdParams } from './ids.js';

/**
 * The race's states. `finishing` is internal but visible: the results are being written and a
 * join is answered `server_busy` (the client retries after 2 s).
 */
export const RACE_STATUSES = ['idle', 'lobby', 'countdown', 'active', 'finishing'] as const;
export const RaceStatus = z.enum(RACE_STATUSES);
export type RaceStatus = z.infer<typeof RaceStatus>;

/** Raffles come with issue 13; until then the raffle is always closed. */
export const RaffleStatus = z.enum(['closed', 'open']);
export type RaffleStatus = z.infer<typeof RaffleStatus>;

/** Admin race settings: bounds and defaults (issue 12). */
export const RACE_SETTINGS_LIMITS = {
  countdownSeconds: { min: 3, max: 10, default: 5 },
  raceLengthMinutes: { min: 1, max: 30, default: 3 },
  minLapSeconds: { min: 1, max: 60, default: 3 },
} as const;

/** Passes older than this (the lap counter's clock against ours) are ignored. */
export const PASS_MAX_AGE_MS = 10_000;
/** Passes dated further in the future than this (clock skew) are ignored. */
export const PASS_FUTURE_TOLERANCE_MS = 1_000;

export const RaceParticipant = z.object({
  userId: z.number().int(),
  /** The name shown (the part before `#` is shown by the web app like everywhere else). */
  username: z.string(),
  carId: z.number().int(),
  carName: z.string(),
  isReady: z.boolean(),
  /** Last latency the participant's browser reported (ms), null before the first report. */
  ping: z.number().nullable(),
  /**
   * When the participant's car session ends (ISO): in the lobby, its end (the lobby keeps the
   * car at most one more turn); null from the start on, when the car is theirs until the race ends.
   */
  sessionEndsAt: z.string().nullable().optional(),
});
export type RaceParticipant = z.infer<typeof RaceParticipant>;

/** The race state payload (spec §3), pushed as `race_state_update {payload}` on every change. */
export const RaceState = z.object({
  /** The race being run (lobby onwards); null when idle. Links to /races/{id} once finished. */
  race_id: z.number().int().nullable(),
  race_status: RaceStatus,
  raffle_status: RaffleStatus,
  /** End of the active race (ISO), null outside `active`. */
  race_expires_at: z.string().nullable(),
  /** Seconds left in the countdown (N…1), null outside `countdown`. */
  countdown_value: z.number().int().nullable(),
  readyCount: z.number().int(),
  totalParticipants: z.number().int(),
  participants: z.array(RaceParticipant),
});
export type RaceState = z.infer<typeof RaceState>;

export const IDLE_RACE_STATE: RaceState = {
  race_id: null,
  race_status: 'idle',
  raffle_status: 'closed',
  race_expires_at: null,
  countdown_value: null,
  readyCount: 0,
  totalParticipants: 0,
  participants: [],
};

/**
 * A live leaderboard row (spec §3). Lap times are milliseconds (integers); the web app shows
 * seconds with 2 decimals. `user_id` and `car_id` let a driver find their own row.
 */
export const LiveLeaderboardRow = z.object({
  pos: z.number().int(),
  name: z.string(),
  laps: z.number().int(),
  last_lap: z.number().int().nullable(),
  best_lap: z.number().int().nullable(),
  user_id: z.number().int(),
  car_id: z.number().int(),
});
export type LiveLeaderboardRow = z.infer<typeof LiveLeaderboardRow>;

/** A leaderboard row (spec §3): the member's best race (most laps, then best lap) and race count. */
export const LeaderboardRow = z.object({
  user_id: z.number().int(),
  username: z.string(),
  avatar_url: z.string().nullable(),
  best_race_laps: z.number().int(),
  /** Best lap of that best race, ms; null when it had no complete lap. */
  best_race_lap_time: z.number().int().nullable(),
  total_races: z.number().int(),
});
export type LeaderboardRow = z.infer<typeof LeaderboardRow>;

export const LeaderboardResponse = z.object({ data: z.array(LeaderboardRow), totalCount: z.number().int() });
export type LeaderboardResponse = z.infer<typeof LeaderboardResponse>;

/** A personal race history row (spec §3). */
export const RaceHistoryRow = z.object({
  race_id: z.number().int(),
  race_finished_at: z.string(),
  total_laps: z.number().int(),
  best_lap_time_ms: z.number().int().nullable(),
});
export type RaceHistoryRow = z.infer<typeof RaceHistoryRow>;

export const RaceHistoryResponse = z.object({ data: z.array(RaceHistoryRow), totalCount: z.number().int() });
export type RaceHistoryResponse = z.infer<typeof RaceHistoryResponse>;

/** How a finished race ended (`races.end_reason`): ran its time, ended by an admin, or finished on a restart. */
export const RACE_END_REASONS = ['expired', 'ended_by_admin', 'recovered'] as const;

/** A driver on a race's podium (the first three positions). */
export const PodiumPlace = z.object({
  position: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  avatar_url: z.string().nullable(),
  total_laps: z.number().int(),
  best_lap_time_ms: z.number().int().nullable(),
});
export type PodiumPlace = z.infer<typeof PodiumPlace>;

/**
 * The signed-in member's last finished race (GET /api/me/last-race, issue 41): their own result,
 * how many drove, how it ended and the podium. `race` is null before their first finished race.
 */
export const LastRaceResponse = z.object({
  race: z
    .object({
      race_id: z.number().int(),
      finished_at: z.string(),
      /** null for a reason this client does not know. */
      end_reason: z.enum(RACE_END_REASONS).nullable(),
      /** The member's finishing position; null if the race gave them none. */
      position: z.number().int().nullable(),
      total_laps: z.number().int(),
      /** Their best lap, ms; null when they completed no lap. */
      best_lap_time_ms: z.number().int().nullable(),
      drivers: z.number().int(),
      podium: z.array(PodiumPlace).max(3),
    })
    .nullable(),
});
export type LastRaceResponse = z.infer<typeof LastRaceResponse>;
export type LastRace = NonNullable<LastRaceResponse['race']>;

const leaderboardPageSize = z.coerce
  .number()
  .int()
  .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `must be one of ${PAGE_SIZES.join(', ')}`);

/** `?page&limit` of the leaderboards and the race history: sizes 10/25/50/100, default 10. */
export const LeaderboardPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: leaderboardPageSize.default(LEADERBOARD_DEFAULT_PAGE_SIZE),
});
export type LeaderboardPageQuery = z.infer<typeof LeaderboardPageQuery>;

export const SeasonParams = z.object({ season: z.coerce.number().int().min(0).max(10_000) });
export const RaceIdParams = IdParams;

export const RaceLap = z.object({
  lap_number: z.number().int(),
  lap_time_ms: z.number().int(),
  completed_at: z.string(),
});
export type RaceLap = z.infer<typeof RaceLap>;

/** A finished race (GET /api/races/{id}, public): every participant with every lap. */
export const RaceDetail = z.object({
  id: z.number().int(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  participants: z.array(
    z.object({
      position: z.number().int().nullable(),
      user_id: z.number().int(),
      username: z.string(),
      avatar_url: z.string().nullable(),
      car_id: z.number().int(),
      car_name: z.string(),
      total_laps: z.number().int(),
      best_lap_time_ms: z.number().int().nullable(),
      laps: z.array(RaceLap),
    }),
  ),
});
export type RaceDetail = z.infer<typeof RaceDetail>;

/** What `POST /api/admin/race/sync-lap-counter` did. */
export const SyncLapCounterResponse = z.object({ synced: z.number().int() });

/** Which lap counter the server listens to (`LAP_COUNTER`). */
export const LAP_COUNTER_KINDS = ['car', 'zround', 'rotorhazard'] as const;
export type LapCounterKind = (typeof LAP_COUNTER_KINDS)[number];

/**
 * Why the lap counter in use cannot count a car's laps: `no_passes`, with the `car` counter, its
 * agent reports no crossings (a real car without a lap sensor, or an agent that does not say);
 * `no_lap_counter_id`, with a decoder or a timer, the car has no lap counter id (transponder,
 * pilot or node) for the counter's passes to be matched to.
 */
export const UNCOUNTED_REASONS = ['no_passes', 'no_lap_counter_id'] as const;

/** A participant's car whose laps the lap counter in use cannot count (Race Control warns before the start). */
export const UncountedCar = z.object({
  carId: z.number().int(),
  carName: z.string(),
  reason: z.enum(UNCOUNTED_REASONS),
});
export type UncountedCar = z.infer<typeof UncountedCar>;

/** The admin's view of the race (Race Control tab): the state plus the lap counter's. */
export const AdminRaceResponse = z.object({
  state: RaceState,
  leaderboard: z.array(LiveLeaderboardRow),
  lapCounter: z.object({ kind: z.enum(LAP_COUNTER_KINDS), connected: z.boolean() }),
  /**
   * The participants' cars (lobby, countdown or race) the lap counter in use cannot count, in
   * participant order; a car whose agent has not said hello since the server started is not
   * judged (docs/races.md "Which lap counter").
   */
  uncountedCars: z.array(UncountedCar),
});
export type AdminRaceResponse = z.infer<typeof AdminRaceResponse>;
