/**
 * Driving sessions: taking a car with its control code (or a raffle winner's free car), the
 * control token a session opens, and the ends. Sessions end when their time is up through one
 * timer per session (plus a periodic sweep); a race keeps its racers' cars past that and ends
 * their sessions itself (the race engine's RaceSessions port: keepForLobby, keepForRace,
 * releaseFromRace, endRaceSessions). Every end is told as `car.session-ended` from here.
 */
import { timingSafeEqual } from 'node:crypto';
import { type Car, type CarSessionEndReason, ERROR_KEYS } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, minutesAfter } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { DomainError, minutesToWait, secondsToWait } from '../../domain-error.js';
import type { DomainEvents, EventBus } from '../../events.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { LimitWindow, memoryLimiters } from '../../limit-window.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { CarPresence } from './cars.presenter.js';
import {
  type CarRow,
  type CarSessionRow,
  clearControlCode,
  type EndedSession,
  endExpiredSessions,
  endSessionsOfCar,
  endSessionsOfUser,
  findLiveSessionByToken,
  findLiveSessionOfCar,
  insertSession,
  listCarsWithHolders,
  listLiveSessions,
  lockLiveCar,
  recordWrongCode,
  setSessionControlToken,
  setSessionEnd,
} from './cars.repo.js';
import { type CarsService, carNotFound } from './cars.service.js';

const invalidCode = (): DomainError =>
  new DomainError('forbidden', 'Invalid control code', ERROR_KEYS.invalidControlCode);
const carInUse = (): DomainError =>
  new DomainError('conflict', 'This car is in use by another driver.', ERROR_KEYS.carInUse);

/** Wrong tries on one car after which its code is dead (an admin generates a new one). */
export const CODE_FAILURES_PER_CAR = 10;
/** Wrong codes one member may type per rolling hour, across cars and addresses. */
export const WRONG_CODES_PER_MEMBER_PER_HOUR = 20;
export const WRONG_CODES_WINDOW_MS = 60 * 60_000;

function tooManyWrongCodes(waitMs: number): DomainError {
  return new DomainError(
    'rate_limited',
    `Too many wrong control codes. Try again in ${minutesToWait(waitMs)}.`,
    ERROR_KEYS.tooManyControlCodeAttempts,
    { retryAfterSeconds: secondsToWait(waitMs) },
  );
}

/** A race's driver on their car. */
type Driver = { userId: number; carId: number };

const later = (a: Date, b: Date): Date => (a.getTime() >= b.getTime() ? a : b);

/** A safety net behind the per-session timers: a session whose timer was lost still ends. */
const SWEEP_INTERVAL_MS = 10_000;

/** Whether `given` opens the car at `now`: its current code, not expired (compared in constant time). */
function opensCar(given: string, car: CarRow, now: Date): boolean {
  const expected = car.controlCode;
  if (expected === null || car.controlCodeExpiresAt === null) return false;
  if (car.controlCodeExpiresAt.getTime() <= now.getTime()) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

interface DrivingSessionsDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The car's status a new driver gets back. */
  cars: Pick<CarsService, 'status'>;
  presence: CarPresence;
  /** The admin's settings (the session duration), in memory. */
  settings: Pick<SettingsService, 'get'>;
  /**
   * Wrong control codes per member (WRONG_CODES_PER_MEMBER_PER_HOUR an hour): in memory
   * by default, shared by every instance with REDIS_URL (scale-out/limit-stores.ts).
   */
  codeBudget?: LimitWindow<number>;
}

export class DrivingSessions {
  readonly #timers = new Map<number, ReturnType<Clock['setTimeout']>>();
  readonly #codeBudget: LimitWindow<number>;
  #sweeper: ReturnType<Clock['setInterval']> | undefined;
  readonly db: Db;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly cars: Pick<CarsService, 'status'>;
  readonly presence: CarPresence;
  readonly settings: Pick<SettingsService, 'get'>;

  constructor(deps: DrivingSessionsDeps) {
    this.db = deps.db;
    this.events = deps.bus;
    this.clock = deps.clock;
    this.log = deps.log;
    this.cars = deps.cars;
    this.presence = deps.presence;
    this.settings = deps.settings;
    this.#codeBudget =
      deps.codeBudget ??
      new LimitWindow(
        memoryLimiters('control-codes', WRONG_CODES_PER_MEMBER_PER_HOUR, WRONG_CODES_WINDOW_MS),
      );
  }

  /**
   * Takes the car with its control code (single use: a successful connect consumes it). A member
   * who already holds the car gets a fresh control token for the same session, without a code.
   * A wrong, expired or dead code gets the same answer, so guessing teaches nothing; each wrong
   * one counts on the car (its code dies at CODE_FAILURES_PER_CAR) and on the member's budget.
   */
  async connect(user: UserRow, carId: number, code: string): Promise<{ car: Car; controlToken: string }> {
    const controlToken = newOpaqueToken();
    const tokenHash = hashToken(controlToken);
    const minutes = (await this.settings.get()).car_session_duration_minutes;
    await this.sweepExpired(carId);
    // Asked before the transaction (it may ask Redis); applied inside, after the own-car case.
    const codeWaitMs = await this.#codeBudget.retryAfterMs(user.id);
    const started = await this.db.transaction(async (tx) => {
      const car = await lockLiveCar(tx, carId);
      if (!car) throw carNotFound();
      const now = this.clock.now();
      const live = await findLiveSessionOfCar(tx, carId, now);
      if (live) {
        if (live.userId !== user.id) throw carInUse();
        await setSessionControlToken(tx, live.id, tokenHash);
        return null;
      }
      if (codeWaitMs > 0) throw tooManyWrongCodes(codeWaitMs);
      if (!opensCar(code, car, now)) {
        // Counted in this transaction, which must commit: the error is thrown after it.
        return { wrong: true, killed: await recordWrongCode(tx, carId, CODE_FAILURES_PER_CAR) } as const;
      }
      await clearControlCode(tx, carId);
      return insertSession(tx, {
        carId,
        userId: user.id,
        controlTokenHash: tokenHash,
        expiresAt: minutesAfter(now, minutes),
      });
    });
    if (started && 'wrong' in started) {
      await this.#codeBudget.record(user.id);
      if (started.killed) {
        this.log.warn({ carId }, 'control code invalidated after too many wrong tries');
      }
      throw invalidCode();
    }
    if (started) this.#sessionStarted(started, user);
    return this.#driving(carId, user, controlToken);
  }

  /** A new session's timer and fact. */
  #sessionStarted(session: CarSessionRow, user: UserRow): void {
    this.#schedule(session);
    this.events.emit('car.session-started', {
      carId: session.carId,
      userId: user.id,
      username: user.username,
      sessionId: session.id,
      expiresAt: session.expiresAt.toISOString(),
    });
  }

  /** What a member who now holds the car gets: its status and their control token. */
  async #driving(
    carId: number,
    user: UserRow,
    controlToken: string,
  ): Promise<{ car: Car; controlToken: string }> {
    return { car: await this.cars.status(carId, { id: user.id, isAdmin: user.isAdmin }), controlToken };
  }

  /**
   * A car for a raffle winner who just claimed their prize (no control code): the car they
   * already hold if any (with a fresh control token), else the first online car nobody holds, in
   * a new session like a code connect. Null when no online car is free.
   */
  async assignFreeCar(user: UserRow): Promise<{ car: Car; controlToken: string } | null> {
    const controlToken = newOpaqueToken();
    const tokenHash = hashToken(controlToken);
    const minutes = (await this.settings.get()).car_session_duration_minutes;
    await this.sweepExpired();
    const rows = await listCarsWithHolders(this.db, this.clock.now());
    const held = rows.find((row) => row.session?.userId === user.id);
    const candidates = held
      ? [held]
      : rows.filter((row) => row.session === null && this.presence.isOnline(row.car.id));
    for (const { car } of candidates) {
      // Each candidate is taken under its row lock, as connect() does: a code connect or another
      // winner racing for the same car finds its live session and moves on.
      const started = await this.db.transaction(async (tx) => {
        if (!(await lockLiveCar(tx, car.id))) return 'taken' as const;
        const now = this.clock.now();
        const live = await findLiveSessionOfCar(tx, car.id, now);
        if (live) {
          if (live.userId !== user.id) return 'taken' as const;
          await setSessionControlToken(tx, live.id, tokenHash);
          return 'kept' as const;
        }
        return insertSession(tx, {
          carId: car.id,
          userId: user.id,
          controlTokenHash: tokenHash,
          expiresAt: minutesAfter(now, minutes),
        });
      });
      if (started === 'taken') continue;
      if (started !== 'kept') this.#sessionStarted(started, user);
      return this.#driving(car.id, user, controlToken);
    }
    return null;
  }

  /** The live session the control token opens, if it belongs to this member and this car. */
  async sessionForControlToken(userId: number, carId: number, token: string): Promise<CarSessionRow | null> {
    const session = await findLiveSessionByToken(this.db, hashToken(token), this.clock.now());
    return session && session.userId === userId && session.carId === carId ? session : null;
  }

  /** Ends every session of the member (ban, account deletion). */
  async endSessionsOfUser(userId: number, reason: CarSessionEndReason): Promise<void> {
    const ended = await endSessionsOfUser(this.db, userId, reason, this.clock.now());
    this.ended(ended, reason);
  }

  /**
   * A race is over: the sessions its drivers hold on their race cars end ('race_ended': they go
   * home with the race-ended alert). A car someone else holds by now is left alone.
   */
  async endRaceSessions(drivers: readonly Driver[]): Promise<void> {
    const now = this.clock.now();
    const ended = await this.db.transaction(async (tx) => {
      const all: EndedSession[] = [];
      for (const { userId, carId } of drivers) {
        const live = await findLiveSessionOfCar(tx, carId, now);
        if (live?.userId === userId) all.push(...(await endSessionsOfCar(tx, carId, 'race_ended', now)));
      }
      return all;
    });
    this.ended(ended, 'race_ended');
  }

  // ── a race keeps its racers' cars (issue 23, docs/races.md "When sessions end") ─────────────

  /**
   * A lobby participant's car is kept while the lobby waits, at most one more turn (the session
   * duration now) past the end the session was given. Answers the session's end, or null when
   * the driver no longer holds the car.
   */
  async keepForLobby(driver: Driver): Promise<Date | null> {
    const minutes = (await this.settings.get()).car_session_duration_minutes;
    const kept = await this.#moveEnd(driver, (session) =>
      later(session.expiresAt, minutesAfter(session.nominalExpiresAt, minutes)),
    );
    return kept?.expiresAt ?? null;
  }

  /** A race started: its racers keep their cars at least until `until` (the race ends them). */
  async keepForRace(drivers: readonly Driver[], until: Date): Promise<void> {
    for (const driver of drivers) await this.#moveEnd(driver, (session) => later(session.expiresAt, until));
  }

  /** The driver left the lobby with this car: the end it was given counts again (now, if past). */
  async releaseFromRace(driver: Driver): Promise<void> {
    await this.#moveEnd(driver, (session) => session.nominalExpiresAt);
  }

  /**
   * Moves the end of the driver's live session on the car (under the car's lock, like a connect or
   * a kick) and says so; a session that ends by it is ended at once. Null when not theirs.
   */
  async #moveEnd(driver: Driver, end: (session: CarSessionRow) => Date): Promise<CarSessionRow | null> {
    const moved = await this.db.transaction(async (tx) => {
      if (!(await lockLiveCar(tx, driver.carId))) return null;
      const live = await findLiveSessionOfCar(tx, driver.carId, this.clock.now());
      if (live?.userId !== driver.userId) return null;
      const expiresAt = end(live);
      if (expiresAt.getTime() === live.expiresAt.getTime()) return { session: live, changed: false };
      await setSessionEnd(tx, live.id, expiresAt);
      return { session: { ...live, expiresAt }, changed: true };
    });
    if (!moved?.changed) return moved?.session ?? null;
    const { session } = moved;
    this.events.emit('car.session-end-changed', {
      carId: session.carId,
      userId: session.userId,
      sessionId: session.id,
      expiresAt: session.expiresAt.toISOString(),
    });
    if (session.expiresAt.getTime() > this.clock.now().getTime()) this.#schedule(session);
    else await this.sweepExpired(session.carId);
    return session;
  }

  /** Ends the sessions whose time is up (of one car, or all); the timers call it, tests may too. */
  async sweepExpired(carId?: number): Promise<void> {
    this.ended(await endExpiredSessions(this.db, this.clock.now(), carId), 'session_expired');
  }

  /** Sessions ended elsewhere (an admin's kick or delete): their timers go and their ends are told. */
  ended(sessions: EndedSession[], reason: CarSessionEndReason): void {
    for (const session of sessions) {
      this.clock.clear(this.#timers.get(session.id));
      this.#timers.delete(session.id);
      this.events.emit('car.session-ended', {
        carId: session.carId,
        userId: session.userId,
        sessionId: session.id,
        reason,
      });
    }
  }

  #schedule(session: Pick<CarSessionRow, 'id' | 'expiresAt'>): void {
    this.clock.clear(this.#timers.get(session.id));
    // setTimeout's limit is ~24.8 days; sessions last at most 4 hours. The 20 ms: Node's timers
    // run on a monotonic clock and may fire a hair before the wall clock reaches the expiry.
    const delay = Math.max(0, session.expiresAt.getTime() - this.clock.now().getTime()) + 20;
    const timer = this.clock.setTimeout(() => {
      this.#timers.delete(session.id);
      this.sweepExpired().catch((error: unknown) => this.log.error({ err: error }, 'session expiry failed'));
    }, delay);
    this.#timers.set(session.id, timer);
  }

  /** After the migrations: end what expired while the server was down, time the live sessions. */
  async start(): Promise<void> {
    await this.resume();
    this.#sweeper = this.clock.setInterval(() => {
      this.sweepExpired().catch((error: unknown) => this.log.warn({ err: error }, 'session sweep failed'));
    }, SWEEP_INTERVAL_MS);
  }

  /** A banned or deleted member's cars stop being theirs (other revocations keep the car). */
  async onSessionsRevoked({ userId, reason }: DomainEvents['user.sessions-revoked']): Promise<void> {
    if (reason === 'banned' || reason === 'account_deleted') await this.endSessionsOfUser(userId, reason);
  }

  /** Ends the sessions that are over and (re)arms a timer for each live one. */
  async resume(): Promise<void> {
    await this.sweepExpired();
    for (const session of await listLiveSessions(this.db, this.clock.now())) this.#schedule(session);
  }

  stop(): void {
    for (const timer of this.#timers.values()) this.clock.clear(timer);
    this.#timers.clear();
    this.clock.clear(this.#sweeper);
  }
}
