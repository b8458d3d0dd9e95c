/**
 * Domain events: the facts the server's modules publish after a change commits (docs/architecture.md
 * "Domain events"). Each is a zod schema of plain JSON (times as ISO strings, no Date, no class), so a
 * fact can cross a process boundary unchanged: the in-process bus today, Redis between
 * instances later. Events say what happened, never what someone should do about it; each module
 * decides how it reacts.
 *
 * A separate entry point (`@telerace/protocol/events`): the browser never loads these.
 */
import { z } from 'zod';
import { PLATFORMS } from './account.js';
import { AdminSettings, CAR_SESSION_END_REASONS, CarConfig } from './cars.js';
import { LAP_COUNTER_KINDS, LiveLeaderboardRow, RaceState } from './races.js';

const id = z.number().int().positive();
const isoTime = z.iso.datetime();

/** Why every session of a member ended. */
export const SESSIONS_REVOKED_REASONS = [
  'banned',
  'account_deleted',
  'password_changed',
  'logout_all',
] as const;

export const DOMAIN_EVENTS = {
  /** Every session of the member ended (ban, deletion, password change or reset, log-out everywhere). */
  'user.sessions-revoked': z.object({ userId: id, reason: z.enum(SESSIONS_REVOKED_REASONS) }),
  /**
   * One session (refresh-token family) ended: log-out, or its refresh token was replayed. The
   * sockets opened with that session's access tokens belong to it.
   */
  'session.revoked': z.object({ userId: id, sessionId: z.string().min(1) }),
  /** A member signed up, with an e-mail and a password or with a social account. */
  'user.created': z.object({ userId: id, username: z.string() }),
  /** An admin added or removed tickets by hand (`tickets` is the member's total after it). */
  'tickets.adjusted': z.object({ userId: id, amount: z.number().int(), tickets: z.number().int() }),
  /** An admin granted or removed the admin role. */
  'user.role-changed': z.object({ userId: id, isAdmin: z.boolean() }),
  /**
   * A users row changed in a way some answer or check reads (ban, deletion, role, password,
   * details, profile, theme, terms, sign-in), emitted after the commit by every writer.
   * `username` is the name after the change.
   */
  'user.changed': z.object({ userId: id, username: z.string() }),
  /** An admin (or SIM_CARS at start-up) created a car: what the members' car list shows of it. */
  'car.created': z.object({
    carId: id,
    name: z.string(),
    imageUrl: z.string().nullable(),
    streamId: id,
    config: CarConfig,
  }),
  /** A new control code was generated for the car (the code itself is a credential: never here). */
  'car.code-generated': z.object({ carId: id, expiresAt: isoTime }),
  /** A member took the car (connect with a code). `username` as the car list shows it. */
  'car.session-started': z.object({
    carId: id,
    userId: id,
    username: z.string(),
    sessionId: id,
    expiresAt: isoTime,
  }),
  /**
   * A live session's end moved (issue 23): a race keeps its racer's car (later), or a driver who
   * left the lobby gets the end the session was given back (earlier). `expiresAt` is the new end.
   */
  'car.session-end-changed': z.object({
    carId: id,
    userId: id,
    sessionId: id,
    expiresAt: isoTime,
  }),
  /**
   * A car agent finished its handshake (it can receive messages now). `instance`: the server
   * instance holding its socket (scale-out: where a driver on another instance relays to).
   * `passes`: whether its agent reports its finish-line crossings (its hello's capabilities);
   * absent from an instance older than the field, when nothing is known.
   */
  'car.online': z.object({
    carId: id,
    instance: z.string().min(1).optional(),
    passes: z.boolean().optional(),
  }),
  /** A car agent's socket closed (on `instance`: a car that moved on is still online elsewhere). */
  'car.offline': z.object({ carId: id, instance: z.string().min(1).optional() }),
  /** A driving session ended. */
  'car.session-ended': z.object({
    carId: id,
    userId: id,
    sessionId: id,
    reason: z.enum(CAR_SESSION_END_REASONS),
  }),
  /**
   * The car's stored video PIN was replaced (its session ended, an admin lost the role): the
   * instance holding the car gives it to the mountpoint and evicts the viewers.
   */
  'car.video-pin-changed': z.object({ carId: id }),
  /** The car was deleted (emitted after its session ended). */
  'car.deleted': z.object({ carId: id }),
  /** The car's secret changed: what authenticated with the old one no longer does. */
  'car.secret-rotated': z.object({ carId: id }),
  /** The admin changed the car's limits. */
  'car.config-changed': z.object({ carId: id, config: CarConfig }),
  /** An admin asked the car to reboot or shut down (the car was online when asked). */
  'car.command-requested': z.object({ carId: id, command: z.enum(['reboot', 'shutdown']) }),
  /** An admin changed run-time settings: all of them after the change (new sessions get the new duration). */
  'settings.changed': z.object({ settings: AdminSettings }),
  /** The admin set or cleared what the lap counter calls a car (transponder or pilot id). */
  'car.lap-counter-id-changed': z.object({ carId: id, lapCounterId: z.string().nullable() }),
  /**
   * A lap counter saw a car cross the finish line at `at` (epoch ms). The race engine decides
   * whether it counts (docs/races.md "Lap counting").
   */
  'lap.passed': z.object({ carId: id, at: z.number().int().positive(), source: z.enum(LAP_COUNTER_KINDS) }),
  /**
   * The race changed (lobby opened, someone joined, left, got ready, reported a ping, the
   * countdown ticked, the race started, ended, was written): the whole state after it, as every
   * event socket receives it.
   */
  'race.changed': z.object({ state: RaceState }),
  /** A lap counted (after it was stored): the live leaderboard after it. */
  'race.lap-completed': z.object({
    raceId: id,
    carId: id,
    userId: id,
    lapNumber: z.number().int().positive(),
    lapTimeMs: z.number().int().positive(),
    completedAt: isoTime,
    leaderboard: z.array(LiveLeaderboardRow),
  }),
  /** A race's results were written (`reason`: its time ran out, an admin ended it, a restart found it over). */
  'race.finished': z.object({
    raceId: id,
    finishedAt: isoTime,
    reason: z.enum(['expired', 'ended_by_admin', 'recovered']),
    userIds: z.array(id),
  }),
  /** An admin opened a raffle; `commitment` is the SHA-256 of its still secret seed. */
  'raffle.opened': z.object({ raffleId: id, racers: z.number().int().positive(), commitment: z.string() }),
  /** A new entry in the open raffle (a repeated entry of the same identity is no fact). */
  'raffle.entered': z.object({
    raffleId: id,
    platform: z.enum(PLATFORMS),
    platformUserId: z.string(),
    displayName: z.string(),
    entries: z.number().int().positive(),
    /** When it entered (an account's first entry is the one drawn); absent from older instances. */
    enteredAt: isoTime.optional(),
  }),
  /** The raffle was drawn (seed revealed, winners' prizes created), winners first drawn first. */
  'raffle.drawn': z.object({
    raffleId: id,
    winners: z.array(
      z.object({ platform: z.enum(PLATFORMS), platformUserId: z.string(), displayName: z.string() }),
    ),
    drawnAt: isoTime,
  }),
  /** An admin closed the open raffle without a draw. */
  'raffle.aborted': z.object({ raffleId: id }),
  /** An admin cleared every pending prize (unclaimed, unexpired) at once. */
  'prizes.cleared': z.object({ prizeIds: z.array(id) }),
  /** A winner claimed their prize, signed in as `userId` with the winning identity. */
  'prize.claimed': z.object({ prizeId: id, raffleId: id, userId: id }),
  /** A claimed prize went back to pending (the claim could not give a car). */
  'prize.released': z.object({ prizeId: id }),
  /**
   * Donation tickets recorded for a platform identity (bits, a Super Chat, a tip). `userId`: the
   * account linked to the identity now, if any (the tickets count for it; else once it links).
   */
  'tickets.donated': z.object({
    platform: z.enum(PLATFORMS),
    platformUserId: z.string(),
    userId: id.nullable(),
    tickets: z.number().int().nonnegative(),
    sourceId: z.string(),
  }),
  /** A platform subscription began, renewed or ended (loyalty tickets follow it). */
  'subscription.changed': z.object({
    platform: z.enum(PLATFORMS),
    platformUserId: z.string(),
    userId: id.nullable(),
    active: z.boolean(),
    months: z.number().int().nonnegative(),
  }),
} as const;

export type DomainEventName = keyof typeof DOMAIN_EVENTS;
export type DomainEvents = { [K in DomainEventName]: z.infer<(typeof DOMAIN_EVENTS)[K]> };
