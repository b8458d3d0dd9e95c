/**
 * The database schema (drizzle). `drizzle-kit generate` turns changes here into the SQL
 * migrations committed under apps/server/drizzle; write only what PostgreSQL 15 and PGlite both run.
 * Over 400 lines on purpose: every table, index and check in one file, reviewed together with the
 * migration it generates.
 */
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** Settings an admin changes at run time (e.g. car_session_duration_minutes), one JSON value per key. */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Members. `username` is the full name including an optional `#suffix` (the web app shows the part
 * before the last `#`). A deleted account keeps its row, scrubbed of personal data, so race results
 * stay consistent under an anonymous name.
 */
export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    email: text('email'),
    passwordHash: text('password_hash'),
    bio: text('bio').notNull().default(''),
    avatarUrl: text('avatar_url'),
    preferredTheme: text('preferred_theme').notNull().default('dark'),
    youtubeId: text('youtube_id'),
    twitchId: text('twitch_id'),
    discordId: text('discord_id'),
    isAdmin: boolean('is_admin').notNull().default(false),
    isBanned: boolean('is_banned').notNull().default(false),
    /** Set when the member agreed to the terms (sign-up form, or complete-registration after social sign-up). */
    termsAcceptedAt: timestamp('terms_accepted_at', { withTimezone: true }),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    /**
     * Access tokens issued before this instant are refused (set by a password change or reset), so
     * a stolen token dies with the old password instead of living out its 15 minutes.
     */
    tokensValidAfter: timestamp('tokens_valid_after', { withTimezone: true }),
    /**
     * The username folded for look-alike comparison (NFKC, case-folded, confusables mapped to one
     * skeleton): unique, so `Admin`, `Аdmin` (Cyrillic А) and `Ａdmin` cannot all exist.
     * Null only for rows written before it existed (filled at start-up).
     */
    usernameSkeleton: text('username_skeleton'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('users_username_lower_key').on(sql`lower(${t.username})`),
    uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_skeleton_key').on(t.usernameSkeleton),
    uniqueIndex('users_youtube_id_key').on(t.youtubeId),
    uniqueIndex('users_twitch_id_key').on(t.twitchId),
    uniqueIndex('users_discord_id_key').on(t.discordId),
    check('users_preferred_theme_check', sql`${t.preferredTheme} in ('dark', 'light')`),
  ],
);

/**
 * Refresh tokens, stored hashed. Each login starts a family; every refresh rotates to a new token
 * of the same family. Presenting a used token after the grace window revokes the whole family.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Absolute end of the family (login + 30 days); rotation does not extend it. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_key').on(t.tokenHash),
    index('refresh_tokens_family_idx').on(t.familyId),
    index('refresh_tokens_user_idx').on(t.userId),
  ],
);

/** One row per successful login (admin "Login History" tab). */
export const loginHistory = pgTable(
  'login_history',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ip: text('ip').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('login_history_created_idx').on(t.createdAt), index('login_history_user_idx').on(t.userId)],
);

/** Password-reset tokens, stored hashed, single use; a newer one invalidates the older ones. */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set when used, or when a newer token replaced this one. */
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('password_resets_token_hash_key').on(t.tokenHash),
    index('password_resets_user_idx').on(t.userId),
  ],
);

/**
 * The ticket ledger: donations and admin adjustments. `source_id` is unique, so replaying the
 * same donation event or the same adjustment request adds nothing. An adjustment names the
 * member (`user_id`); a donation names the platform identity that gave it (`platform`,
 * `platform_user_id`) and counts for whichever account links that identity, now or later
 * (docs/integrations.md "Tickets").
 */
export const ticketLedger = pgTable(
  'ticket_ledger',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    platform: text('platform'),
    platformUserId: text('platform_user_id'),
    kind: text('kind').notNull(),
    amount: integer('amount').notNull(),
    sourceId: text('source_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('ticket_ledger_source_id_key').on(t.sourceId),
    index('ticket_ledger_user_idx').on(t.userId),
    index('ticket_ledger_identity_idx').on(t.platform, t.platformUserId),
    check('ticket_ledger_kind_check', sql`${t.kind} in ('donation', 'adjustment')`),
    check(
      'ticket_ledger_owner_check',
      sql`${t.userId} is not null or (${t.platform} is not null and ${t.platformUserId} is not null)`,
    ),
  ],
);

/**
 * A platform identity's subscription to the channel (loyalty tickets), active or ended; filled
 * by the chat integrations. `subscribed_since` is set back by the cumulative months the platform
 * reports. It counts for whichever account links the identity.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: serial('id').primaryKey(),
    platform: text('platform').notNull(),
    platformUserId: text('platform_user_id').notNull(),
    subscribedSince: timestamp('subscribed_since', { withTimezone: true }).notNull(),
    active: boolean('active').notNull().default(true),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('subscriptions_identity_key').on(t.platform, t.platformUserId)],
);

/**
 * Webhook deliveries already handled, by (source, delivery id): a platform retrying or an
 * attacker replaying a signed delivery changes nothing. Shared by every instance (issue 15).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    source: text('source').notNull(),
    deliveryId: text('delivery_id').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.deliveryId] }),
    index('webhook_deliveries_received_idx').on(t.receivedAt),
  ],
);

/**
 * Append-only record of every admin action (a trigger refuses UPDATE and DELETE). No foreign
 * keys: the record outlives the accounts it names, so it keeps their names as they were.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: serial('id').primaryKey(),
    actorId: integer('actor_id'),
    actorUsername: text('actor_username'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_created_idx').on(t.createdAt)],
);

/**
 * Cars, provisioned by an admin. The car secret is stored hashed (SHA-256; it is 256 random bits).
 * `stream_id` (the video mountpoint) is derived from the id. A deleted car keeps its row
 * (`deleted_at`) so past sessions keep their car.
 */
export const cars = pgTable(
  'cars',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    imageUrl: text('image_url'),
    secretHash: text('secret_hash').notNull(),
    streamId: integer('stream_id').notNull().generatedAlwaysAs(sql`1000 + id`),
    configForwardSpeed: integer('config_forward_speed').notNull().default(100),
    configBackwardSpeed: integer('config_backward_speed').notNull().default(100),
    configSteeringTrim: integer('config_steering_trim').notNull().default(0),
    /** The current control code (uppercase); single use, replaced by each generate_code. */
    controlCode: text('control_code'),
    /** After this the code no longer opens the car (CONTROL_CODE_TTL_MINUTES); null: no code. */
    controlCodeExpiresAt: timestamp('control_code_expires_at', { withTimezone: true }),
    /** Wrong codes tried on this car since its code was generated; the code dies at 10. */
    controlCodeFailures: integer('control_code_failures').notNull().default(0),
    /** What the lap counter calls this car (ZRound transponder or RotorHazard pilot id). */
    lapCounterId: text('lap_counter_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('cars_stream_id_key').on(t.streamId),
    uniqueIndex('cars_lap_counter_id_key').on(t.lapCounterId).where(sql`${t.deletedAt} is null`),
    check('cars_forward_speed_check', sql`${t.configForwardSpeed} between 20 and 100`),
    check('cars_backward_speed_check', sql`${t.configBackwardSpeed} between 20 and 100`),
    check('cars_steering_trim_check', sql`${t.configSteeringTrim} between -50 and 50`),
  ],
);

/**
 * Driving sessions: a car is held by `user_id` while `ended_at` is null and `expires_at` is in the
 * future. At most one unended session per car (partial unique index). The control token is stored
 * hashed and is valid only for its own (user, car, session). `nominal_expires_at` is the end the
 * session was given when it started; `expires_at` moves past it while a race keeps the car
 * (issue 23, docs/races.md "When sessions end") and back to it when the driver leaves the lobby.
 */
export const carSessions = pgTable(
  'car_sessions',
  {
    id: serial('id').primaryKey(),
    carId: integer('car_id')
      .notNull()
      .references(() => cars.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    controlTokenHash: text('control_token_hash').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    nominalExpiresAt: timestamp('nominal_expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    endReason: text('end_reason'),
  },
  (t) => [
    uniqueIndex('car_sessions_control_token_hash_key').on(t.controlTokenHash),
    uniqueIndex('car_sessions_one_live_per_car').on(t.carId).where(sql`${t.endedAt} is null`),
    index('car_sessions_user_idx').on(t.userId),
  ],
);

/**
 * The PIN of each car's video mountpoint: the one truth every instance reads (the driver's or an
 * admin's request may reach any of them), written when first asked for and replaced when a
 * driving session ends (`rotated_for_session_id`: the last session whose end replaced it, so
 * that end replaces it once, whichever instances hear of it) or an admin is demoted.
 */
export const carVideoPins = pgTable('car_video_pins', {
  carId: integer('car_id')
    .primaryKey()
    .references(() => cars.id, { onDelete: 'cascade' }),
  pin: text('pin').notNull(),
  rotatedForSessionId: integer('rotated_for_session_id'),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One-time sign-in codes: what /auth/callback receives instead of an access token. A code is
 * bound to the browser that started the flow (the SHA-256 of a nonce kept in that browser's
 * httpOnly cookie), lives a minute and is exchanged once for a session (login CSRF defence).
 */
export const loginCodes = pgTable(
  'login_codes',
  {
    id: serial('id').primaryKey(),
    codeHash: text('code_hash').notNull(),
    bindingHash: text('binding_hash').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('login_codes_code_hash_key').on(t.codeHash),
    index('login_codes_user_idx').on(t.userId),
  ],
);

/**
 * Races (docs/races.md). At most one race is unfinished at a time (`finished_at` null: lobby,
 * countdown, active or finishing); the engine's state is this row and its participants, so a
 * restart resumes a countdown or a race from the stored times or ends it cleanly.
 */
export const races = pgTable(
  'races',
  {
    id: serial('id').primaryKey(),
    /** lobby, countdown, active, finishing, finished. */
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** When the countdown reaches zero and the race becomes active. */
    countdownEndsAt: timestamp('countdown_ends_at', { withTimezone: true }),
    /** When the race became active. */
    startedAt: timestamp('started_at', { withTimezone: true }),
    /** When the active race ends by itself. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** expired, ended_by_admin, recovered (a lobby that never started is deleted, not finished). */
    endReason: text('end_reason'),
    /** The minimum lap time in force for this race: the setting when it started (settings may change during it). */
    minLapMs: integer('min_lap_ms').notNull(),
  },
  (t) => [
    uniqueIndex('races_one_unfinished').on(sql`(true)`).where(sql`${t.finishedAt} is null`),
    index('races_finished_at_idx').on(t.finishedAt),
  ],
);

/**
 * A member in a race with one car. The lap totals are kept here as laps arrive (so results and
 * leaderboards never re-add laps); `position` is written when the race finishes. A participant
 * who left the lobby before the start is deleted; one who leaves later keeps their laps.
 */
export const raceParticipants = pgTable(
  'race_participants',
  {
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    carId: integer('car_id')
      .notNull()
      .references(() => cars.id),
    isReady: boolean('is_ready').notNull().default(false),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull(),
    /** The last counted pass (a lap ends there and the next starts); null before the first. */
    lastPassAt: timestamp('last_pass_at', { withTimezone: true }),
    laps: integer('laps').notNull().default(0),
    lastLapMs: integer('last_lap_ms'),
    bestLapMs: integer('best_lap_ms'),
    position: integer('position'),
  },
  (t) => [
    primaryKey({ columns: [t.raceId, t.userId] }),
    uniqueIndex('race_participants_race_car_key').on(t.raceId, t.carId),
    index('race_participants_user_idx').on(t.userId, t.raceId),
  ],
);

/** Every counted lap. Unique per (race, member, lap number): a replayed pass cannot count twice. */
export const raceLaps = pgTable(
  'race_laps',
  {
    id: serial('id').primaryKey(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    carId: integer('car_id')
      .notNull()
      .references(() => cars.id),
    lapNumber: integer('lap_number').notNull(),
    lapTimeMs: integer('lap_time_ms').notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('race_laps_race_user_lap_key').on(t.raceId, t.userId, t.lapNumber)],
);

/**
 * Leaderboard seasons: season N covers races finished in [starts_at, ends_at); season 0 has no
 * dates and covers every race (docs/races.md "Seasons").
 */
export const seasons = pgTable('seasons', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  startsAt: timestamp('starts_at', { withTimezone: true }),
  endsAt: timestamp('ends_at', { withTimezone: true }),
});

/**
 * Each member's all-time summary, maintained when a race's results are written: the best race
 * (most laps, then best lap) and the number of races. The all-time and season-0 leaderboards
 * read it through its ordering index instead of aggregating every race.
 */
export const userRaceStats = pgTable(
  'user_race_stats',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    bestRaceLaps: integer('best_race_laps').notNull(),
    bestRaceLapMs: integer('best_race_lap_ms'),
    bestRaceId: integer('best_race_id').references(() => races.id),
    totalRaces: integer('total_races').notNull(),
  },
  (t) => [
    index('user_race_stats_rank_idx').on(
      sql`${t.bestRaceLaps} desc`,
      sql`${t.bestRaceLapMs} asc nulls last`,
      t.userId,
    ),
  ],
);

/**
 * Social sign-in attempts (OAuth 2.0 authorization code + PKCE): one row per redirect to a
 * provider, found again by the hash of its `state`, bound to the browser that started it (the
 * hash of a nonce kept in that browser's short-lived httpOnly cookie), single use, 10 minutes.
 */
export const oauthStates = pgTable(
  'oauth_states',
  {
    id: serial('id').primaryKey(),
    stateHash: text('state_hash').notNull(),
    bindingHash: text('binding_hash').notNull(),
    platform: text('platform').notNull(),
    /** signup, login, claim or connect. */
    action: text('action').notNull(),
    /** The PKCE verifier (S256), needed once at the callback. */
    codeVerifier: text('code_verifier').notNull(),
    /** Who is linking a platform (connect); null otherwise. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('oauth_states_state_hash_key').on(t.stateHash)],
);

/**
 * Raffles (docs/raffle-fairness.md). At most one is open. The seed stays secret until the draw
 * (only its SHA-256, the commitment, is public before); the draw stores the entries' hash.
 */
export const raffles = pgTable(
  'raffles',
  {
    id: serial('id').primaryKey(),
    /** open, drawn, aborted. */
    status: text('status').notNull(),
    racers: integer('racers').notNull(),
    /** 32 random bytes, hex; revealed by the draw. */
    seed: text('seed').notNull(),
    commitment: text('commitment').notNull(),
    entriesHash: text('entries_hash'),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull(),
    drawnAt: timestamp('drawn_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('raffles_one_open').on(sql`(true)`).where(sql`${t.status} = 'open'`)],
);

/**
 * Who entered a raffle, once per (raffle, platform, platform user id). `weight` is frozen at the
 * draw (the ticket total of the account linked to the identity, or the base for chat users
 * without an account); null while the raffle is open, and after the draw for an identity merged
 * into its account's first entry (one account, one entry: modules/raffles/draw-list.ts).
 */
export const raffleEntries = pgTable(
  'raffle_entries',
  {
    raffleId: integer('raffle_id')
      .notNull()
      .references(() => raffles.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    platformUserId: text('platform_user_id').notNull(),
    displayName: text('display_name').notNull(),
    weight: integer('weight'),
    enteredAt: timestamp('entered_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.raffleId, t.platform, t.platformUserId] })],
);

/**
 * A raffle's winners and their prizes: bound to the winning identity (platform, platform user
 * id), claimable until `expires_at` by signing in with that exact identity. Claimed once
 * (`claimed_at` set in one conditional update), or cleared by an admin.
 */
export const prizes = pgTable(
  'prizes',
  {
    id: serial('id').primaryKey(),
    raffleId: integer('raffle_id')
      .notNull()
      .references(() => raffles.id, { onDelete: 'cascade' }),
    /** 1 for the first drawn winner. */
    rank: integer('rank').notNull(),
    platform: text('platform').notNull(),
    platformUserId: text('platform_user_id').notNull(),
    displayName: text('display_name').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    claimedByUserId: integer('claimed_by_user_id').references(() => users.id),
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('prizes_raffle_identity_key').on(t.raffleId, t.platform, t.platformUserId),
    index('prizes_identity_idx').on(t.platform, t.platformUserId),
  ],
);
