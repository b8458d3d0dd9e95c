/**
 * The race engine on the leader (docs/races.md): runs the state machine of race-machine.ts against
 * the database and the clock. Its state is the unfinished `races` row and its participants, so a
 * restart (`start`) resumes a lobby, a countdown or a race from the stored times, or finishes a
 * race whose time ran out while the server was down; nothing is ever left half-written.
 *
 * Every change is written first, then applied in memory, then published as `race.changed` (the
 * whole state: the event sockets and the Race Control tab read it from there, never from the
 * database). A state that only changes ready flags and pings is published at most ten times a
 * second, the latest winning (race-state-pacer.ts, issue 23); every other change at once.
 * Commands (declared in race-commands.ts) and fact reactions run one at a time on the shared queue
 * (race-roles.ts). Only pings skip it: they are not stored. With several instances only the
 * leader's runs (race.ts decides; a follower's commands reach it as race-commands.ts generates).
 *
 * Over 400 lines on purpose: one state machine's runner. Its commands, timers, lap counting and
 * finish read and write the same race state on the same queue; split apart, they would hand that
 * private state to each other.
 */
import { type AdminSettings, ERROR_KEYS, type RaceState, type RaffleStatus } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock, ClockTimer } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import type { CarDirectory } from '../cars/car-directory.js';
import { applyPass, compareStandings, judgePass, liveLeaderboard, type Standing } from './lap-rules.js';
import {
  deleteParticipant,
  discardRace,
  findUnfinishedRace,
  insertLobby,
  recordFirstPass,
  recordLap,
  setReady,
  updateRace,
  upsertParticipant,
  writeResults,
} from './race.repo.js';
import type { RaceMachineState, RaceRefusal } from './race-machine.js';
import * as machine from './race-machine.js';
import {
  type Audit,
  type CommandQueue,
  type Driver,
  type FinishReason,
  type LiveLeaderboard,
  type NeutralHold,
  RaceBusyError,
  type RaceFactReactions,
  type RaceReads,
  type RaceSessions,
  type RaceStats,
} from './race-roles.js';
import { RaceStatePacer } from './race-state-pacer.js';
import { freshStanding, presentRace, restoredState, standingOf } from './race-view.js';

/**
 * How long after a race's end its drivers' sessions are kept at most: the race ends them itself
 * (`race_ended`) once its results are written; this only covers that write (retried every
 * second). Results that take longer leave the sessions to end by the clock, as any other.
 */
export const RACE_SESSION_MARGIN_MS = 60_000;

/** What the race is built from (race.ts), handed on to the engine it runs when it leads. */
export interface RaceEngineParts {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  settings: { current(): AdminSettings };
  directory: Pick<CarDirectory, 'get'>;
  relay: NeutralHold;
  sessions: RaceSessions;
  stats: RaceStats;
}

interface RaceEngineDeps extends RaceEngineParts {
  queue: CommandQueue;
  /** Whether a raffle is open, as every race state shows it. */
  raffleStatus: () => RaffleStatus;
}

const RETRY_FINISH_MS = 1_000;

function refusalError(refusal: RaceRefusal): DomainError {
  if (refusal.kind === 'busy') return new RaceBusyError(refusal.message);
  return new DomainError(refusal.kind, refusal.message, refusal.errorKey);
}

function unwrap(outcome: machine.Outcome): RaceMachineState {
  if (machine.isRefusal(outcome)) throw refusalError(outcome);
  return outcome;
}

export class RaceEngine implements RaceReads, RaceFactReactions {
  readonly #deps: RaceEngineDeps;
  #state: RaceMachineState = machine.IDLE;
  /** By user id, from the countdown on. */
  #standings = new Map<number, Standing>();
  #minLapMs = 0;
  /**
   * Participants whose car session ended after the start: they keep their laps, and their car's
   * passes no longer count (someone else may take the car with a new code).
   */
  #departed = new Set<number>();
  #loaded = false;
  #tickTimer: ClockTimer | undefined;
  #endTimer: ClockTimer | undefined;
  #stopped = false;
  /** Following (`pause`): a command still in flight changes nothing the others see. */
  #paused = false;
  /** Publishes `race.changed`: ready and ping changes at a bounded rate, the rest at once. */
  readonly #published: RaceStatePacer;

  constructor(deps: RaceEngineDeps) {
    this.#deps = deps;
    this.#published = new RaceStatePacer(deps.clock, (state) => deps.bus.emit('race.changed', { state }));
  }

  // ── reading (memory only) ──────────────────────────────────────────────────────────────

  /** The race state payload (spec §3) as every event socket receives it. */
  state(): RaceState {
    const { clock, raffleStatus, directory } = this.#deps;
    return presentRace(this.#state, clock.now().getTime(), raffleStatus(), directory);
  }

  leaderboard(): LiveLeaderboard {
    return liveLeaderboard(this.#standings.values());
  }

  // ── commands ────────────────────────────────────────────────────────────────────────────

  /** `join_lobby {carId}`: only with a car the member holds right now. */
  join(userId: number, carId: number): Promise<void> {
    return this.#serial(async () => {
      if (!this.#loaded) throw new RaceBusyError();
      const listed = this.#deps.directory.get(carId);
      if (!listed || listed.session?.userId !== userId)
        throw new DomainError('forbidden', 'You do not hold this car.', ERROR_KEYS.notCarHolder);
      const joiner = { userId, username: listed.username ?? '', carId, carName: listed.car.name };
      // Validate before writing (the machine refuses a running race, a car taken by another).
      const preview = machine.join(this.#state, joiner, this.#state.raceId ?? 0);
      if (preview === this.#state) return;
      unwrap(preview);
      const now = this.#deps.clock.now();
      const raceId = await this.#deps.db.transaction(async (tx) => {
        const id =
          this.#state.raceId ??
          (await insertLobby(tx, now, this.#deps.settings.current().min_lap_time_seconds * 1000));
        await upsertParticipant(tx, id, userId, carId, now);
        return id;
      });
      // Before the state goes out, so it shows the session's new end.
      const switched = this.#state.participants.find((p) => p.userId === userId);
      if (switched) await this.#sessions((s) => s.releaseFromRace({ userId, carId: switched.carId }));
      await this.#sessions((s) => s.keepForLobby({ userId, carId }));
      this.#apply(unwrap(machine.join(this.#state, joiner, raceId)));
    });
  }

  /** `toggle_ready`: lobby participants only. */
  toggleReady(userId: number): Promise<void> {
    return this.#serial(async () => {
      const next = unwrap(machine.toggleReady(this.#state, userId));
      const participant = next.participants.find((p) => p.userId === userId);
      if (this.#state.raceId === null || !participant) return;
      await setReady(this.#deps.db, this.#state.raceId, userId, participant.isReady);
      this.#apply(unwrap(machine.toggleReady(this.#state, userId)));
    });
  }

  /** `ping_update {latency}` from a participant (memory only: it changes every 2 s). */
  reportPing(userId: number, latency: number): void {
    const next = machine.reportPing(this.#state, userId, latency);
    if (next !== this.#state) this.#apply(next);
  }

  /** Something the state shows changed outside the race (the raffle's status): published. */
  republish(): void {
    this.#published.offer(this.state());
  }

  /**
   * A raffle was drawn: opens an empty lobby from idle for the winners to join once they claim
   * their car (race-machine.ts `openLobby`; otherwise nothing changes). Answers the lobby's race id,
   * or null when a race was already under way. Only its participants leaving discards it, never
   * being empty while nobody has joined yet.
   */
  openLobby(): Promise<number | null> {
    return this.#serial(async () => {
      if (!this.#loaded) throw new RaceBusyError();
      if (this.#state.status !== 'idle') return this.#state.status === 'lobby' ? this.#state.raceId : null;
      const minLapMs = this.#deps.settings.current().min_lap_time_seconds * 1000;
      const raceId = await insertLobby(this.#deps.db, this.#deps.clock.now(), minLapMs);
      this.#apply(machine.openLobby(this.#state, raceId));
      return raceId;
    });
  }

  /**
   * `leave_lobby`: the driver leaves the lobby to drive without racing. The lobby is the only
   * place to leave: anywhere else it is refused, on the leader's race as it is now.
   */
  leaveLobby(userId: number): Promise<void> {
    return this.#serial(async () => {
      const s = this.#state;
      if (s.status !== 'lobby' || !s.participants.some((p) => p.userId === userId))
        throw new DomainError('conflict', 'You are not in the race lobby.', ERROR_KEYS.notInLobby);
      await this.#leaveLobby(userId);
    });
  }

  /** A participant's car session ended: they leave the lobby; a race keeps their laps. */
  sessionEnded({ userId, carId }: Driver): Promise<void> {
    return this.#serial(async () => {
      const s = this.#state;
      if (s.raceId === null || !s.participants.some((p) => p.userId === userId && p.carId === carId)) return;
      if (s.status !== 'lobby') {
        this.#departed.add(userId);
        return;
      }
      await this.#leaveLobby(userId);
    });
  }

  /**
   * Admin: lobby → countdown (the countdown and race length come from the settings now). `audit`
   * writes the admin's record in the same transaction.
   */
  startRace(audit?: Audit): Promise<void> {
    return this.#serial(async () => {
      const settings = this.#deps.settings.current();
      const next = unwrap(
        machine.start(this.#state, {
          now: this.#deps.clock.now().getTime(),
          countdownSeconds: settings.race_countdown_seconds,
          raceLengthMinutes: settings.race_length_minutes,
        }),
      );
      const raceId = next.raceId as number;
      const minLapMs = settings.min_lap_time_seconds * 1000;
      await this.#deps.db.transaction(async (tx) => {
        await updateRace(tx, raceId, {
          status: 'countdown',
          countdownEndsAt: new Date(next.countdownEndsAt as number),
          expiresAt: new Date(next.expiresAt as number),
          minLapMs,
        });
        await audit?.(tx, raceId);
      });
      this.#standings = new Map(next.participants.map((p, order) => [p.userId, freshStanding(p, order)]));
      this.#minLapMs = minLapMs;
      this.#departed = new Set();
      this.#apply(next);
      this.#schedule();
      await this.#keepRacersCars();
    });
  }

  /** Admin: ends the race now (lobby: closes it without results). */
  endRace(audit?: Audit): Promise<void> {
    return this.#serial(async () => {
      const next = unwrap(machine.end(this.#state));
      await this.#finish(next, 'ended_by_admin', audit);
    });
  }

  /** A `lap.passed` fact from the configured lap counter. */
  lapPassed(carId: number, at: number): Promise<void> {
    return this.#serial(async () => {
      const s = this.#state;
      const participant = s.participants.find((p) => p.carId === carId);
      const standing =
        participant && !this.#departed.has(participant.userId)
          ? this.#standings.get(participant.userId)
          : undefined;
      const now = this.#deps.clock.now().getTime();
      const verdict = judgePass(s.status, standing, at, now, this.#minLapMs, s.countdownEndsAt ?? now);
      if (!verdict.counts || !standing || s.raceId === null) {
        if (!verdict.counts) this.#deps.log.debug({ carId, at, why: verdict.why }, 'pass ignored');
        return;
      }
      const after = applyPass(standing, at, verdict);
      if (verdict.lap === null) {
        await recordFirstPass(this.#deps.db, s.raceId, standing.userId, new Date(at));
        this.#standings.set(standing.userId, after);
        return;
      }
      const completedAt = new Date(at);
      await this.#deps.db.transaction((tx) =>
        recordLap(tx, {
          raceId: s.raceId as number,
          userId: standing.userId,
          carId,
          lapNumber: verdict.lap.lapNumber,
          lapTimeMs: verdict.lap.lapTimeMs,
          completedAt,
          bestLapMs: after.bestLapMs as number,
        }),
      );
      this.#standings.set(standing.userId, after);
      this.#deps.bus.emit('race.lap-completed', {
        raceId: s.raceId,
        carId,
        userId: standing.userId,
        lapNumber: verdict.lap.lapNumber,
        lapTimeMs: verdict.lap.lapTimeMs,
        completedAt: completedAt.toISOString(),
        leaderboard: this.leaderboard(),
      });
    });
  }

  // ── life cycle ──────────────────────────────────────────────────────────────────────────

  /** After the migrations: resume the unfinished race from the database, or finish it. */
  start(): Promise<void> {
    return this.#serial(async () => {
      const found = await findUnfinishedRace(this.#deps.db);
      this.#loaded = true;
      if (!found) return;
      const { race, participants } = found;
      const now = this.#deps.clock.now().getTime();
      this.#minLapMs = race.minLapMs;
      const restored = restoredState(found);
      this.#standings = new Map(participants.map((p, order) => [p.userId, standingOf(p, order)]));
      this.#deps.log.info({ raceId: race.id, status: race.status }, 'resuming the unfinished race');
      if (restored.status === 'lobby') {
        // Drivers whose car session ended while the server was down have left. A lobby stored
        // with nobody in it was opened by a raffle's draw and waits for its winners: it stays.
        const kept = restored.participants.filter(
          (p) => this.#deps.directory.get(p.carId)?.session?.userId === p.userId,
        );
        if (kept.length === 0 && restored.participants.length > 0) return this.#discard(race.id);
        for (const p of restored.participants)
          if (!kept.includes(p)) await deleteParticipant(this.#deps.db, race.id, p.userId);
        // Kept as stored already, unless the last leader stopped before it kept them.
        for (const p of kept) await this.#sessions((s) => s.keepForLobby(p));
        this.#apply({ ...restored, participants: kept });
        return;
      }
      if (restored.status === 'finishing')
        return this.#finish(restored, (race.endReason as FinishReason) ?? 'recovered');
      if (await this.#advance(restored, race.id, race.status, now, 'recovered')) await this.#keepRacersCars();
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#clearTimers();
    this.#published.cancel();
  }

  /**
   * This instance became the leader: the engine resumes the race from the database, as at
   * start-up (what the last leader stored is the truth), and publishes it when others may show
   * another (`announce`).
   */
  async resume(announce: boolean): Promise<void> {
    this.#stopped = false;
    this.#paused = false;
    this.#loaded = false;
    this.#state = machine.IDLE;
    this.#standings = new Map();
    this.#departed = new Set();
    await this.start();
    // The followers' copies may still show the last leader's race: this one is the truth now.
    if (announce) this.#published.publishNow(this.state());
  }

  /** Whether the race was loaded from the database (at start-up or by `resume`). */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** This instance follows now: the timers stop at once and nothing more is published. */
  pause(): void {
    this.#paused = true;
    this.#loaded = false;
    this.#clearTimers();
    this.#published.cancel();
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────

  /** A participant of the lobby leaves it; the last one out discards it. */
  async #leaveLobby(userId: number): Promise<void> {
    const s = this.#state;
    if (s.raceId === null) return;
    const next = machine.leave(s, userId);
    if (machine.isEmptyLobby(next)) {
      // The last one out keeps their car: leaving the lobby is not leaving the car (leave_lobby).
      await this.#discard(s.raceId, undefined, []);
      return;
    }
    await deleteParticipant(this.#deps.db, s.raceId, userId);
    this.#apply(machine.leave(this.#state, userId));
  }

  /**
   * The started race's drivers keep their cars until it ends (plus the margin); those whose session
   * ended already are left alone. Idempotent: a resumed race says it again.
   */
  async #keepRacersCars(): Promise<void> {
    const s = this.#state;
    if (s.expiresAt === null || (s.status !== 'countdown' && s.status !== 'active')) return;
    const until = new Date(s.expiresAt + RACE_SESSION_MARGIN_MS);
    const drivers = s.participants.filter((p) => !this.#departed.has(p.userId));
    await this.#sessions((sessions) => sessions.keepForRace(drivers, until));
  }

  /** A change to the drivers' sessions: one that fails is logged, the race goes on. */
  async #sessions(change: (sessions: RaceSessions) => Promise<unknown>): Promise<void> {
    try {
      await change(this.#deps.sessions);
    } catch (error) {
      this.#deps.log.error({ err: error }, 'changing a racer’s session end failed');
    }
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    return this.#deps.queue.run(work);
  }

  #apply(next: RaceMachineState): void {
    const before = this.#state.status;
    this.#state = next;
    if (before === 'countdown' && next.status !== 'countdown') this.#deps.relay.releaseNeutral();
    if (next.status === 'countdown' && before !== 'countdown')
      this.#deps.relay.holdNeutral(next.participants.map((p) => p.carId));
    if (!this.#paused) this.#published.offer(this.state());
  }

  /** Countdown: a tick at each whole second left; active: the end at `expiresAt`. */
  #schedule(): void {
    this.#clearTimers();
    if (this.#stopped) return;
    const s = this.#state;
    const now = this.#deps.clock.now().getTime();
    if (s.status === 'countdown' && s.countdownEndsAt !== null) {
      const left = s.countdownEndsAt - now;
      const delay = left <= 0 ? 0 : left % 1000 || 1000;
      this.#tickTimer = this.#deps.clock.setTimeout(() => void this.#serial(() => this.#tick()), delay);
    } else if (s.status === 'active' && s.expiresAt !== null) {
      this.#endTimer = this.#deps.clock.setTimeout(
        () => void this.#serial(() => this.#tick()),
        Math.max(0, s.expiresAt - now),
      );
    }
  }

  async #tick(): Promise<void> {
    const s = this.#state;
    if (s.raceId === null) return;
    await this.#advance(s, s.raceId, s.status, this.#deps.clock.now().getTime(), 'expired');
  }

  /**
   * The race at `now`: finished (`reason`), or gone green (the start stored over `storedStatus`),
   * or moved on; then applied and its next tick scheduled. False once it finished.
   */
  async #advance(
    state: RaceMachineState,
    raceId: number,
    storedStatus: string,
    now: number,
    reason: FinishReason,
  ): Promise<boolean> {
    const next = machine.advance(state, now);
    if (next.status === 'finishing') {
      await this.#finish(next, reason);
      return false;
    }
    if (next.status === 'active' && storedStatus === 'countdown')
      await updateRace(this.#deps.db, raceId, {
        status: 'active',
        startedAt: new Date(state.countdownEndsAt as number),
      });
    this.#apply(next);
    this.#schedule();
    return true;
  }

  /**
   * Writes the results (positions, the leaderboards' summary, the race finished) in one
   * transaction, then back to idle and the drivers' sessions end. A lobby that never started is
   * discarded instead: it is no race. A failed write is retried: the race stays `finishing`.
   */
  async #finish(state: RaceMachineState, reason: FinishReason, audit?: Audit): Promise<void> {
    this.#clearTimers();
    const raceId = state.raceId as number;
    if (state.countdownEndsAt === null) return this.#discard(raceId, audit);
    // Stored first with its reason: a restart from here finishes the same way.
    await this.#deps.db.transaction(async (tx) => {
      await updateRace(tx, raceId, { status: 'finishing', endReason: reason });
      await audit?.(tx, raceId);
    });
    this.#apply({ ...state, status: 'finishing' });
    const finishedAt = this.#deps.clock.now();
    const order = [...this.#standings.values()].sort(compareStandings);
    try {
      await this.#deps.db.transaction(async (tx) => {
        await writeResults(
          tx,
          raceId,
          order.map((standing, index) => ({ userId: standing.userId, position: index + 1 })),
          finishedAt,
          reason,
        );
        await this.#deps.stats.recordRaceIn(tx, raceId);
      });
    } catch (error) {
      this.#deps.log.error({ err: error, raceId }, 'writing the race results failed; retrying');
      if (!this.#stopped)
        this.#endTimer = this.#deps.clock.setTimeout(
          () => void this.#serial(() => this.#finish(this.#state, reason)),
          RETRY_FINISH_MS,
        );
      return;
    }
    const drivers = state.participants.map(({ userId, carId }) => ({ userId, carId }));
    this.#standings = new Map();
    this.#departed = new Set();
    this.#apply(machine.finished(this.#state));
    this.#deps.bus.emit('race.finished', {
      raceId,
      finishedAt: finishedAt.toISOString(),
      reason,
      userIds: drivers.map((d) => d.userId),
    });
    await this.#deps.sessions.endRaceSessions(drivers);
  }

  /**
   * A lobby that ends without a race (emptied, ended, or found empty at start-up) leaves no rows.
   * `drivers` lose their cars ('race_ended'): by default everyone in it (an admin ended it).
   */
  async #discard(
    raceId: number,
    audit?: Audit,
    drivers: readonly Driver[] = this.#state.participants.map(({ userId, carId }) => ({ userId, carId })),
  ): Promise<void> {
    await this.#deps.db.transaction(async (tx) => {
      await discardRace(tx, raceId);
      await audit?.(tx, raceId);
    });
    this.#standings = new Map();
    this.#apply(machine.IDLE);
    if (drivers.length > 0) await this.#deps.sessions.endRaceSessions(drivers);
  }

  #clearTimers(): void {
    this.#deps.clock.clear(this.#tickTimer);
    this.#deps.clock.clear(this.#endTimer);
    this.#tickTimer = undefined;
    this.#endTimer = undefined;
  }
}
