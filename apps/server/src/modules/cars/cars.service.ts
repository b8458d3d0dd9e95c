/**
 * Cars and driving sessions: listing, connecting with a control code, and the admin actions.
 * Every admin change writes its audit record in the same transaction; the events that make
 * sockets act (stop the car, tell the driver, close a car socket) are emitted after the commit.
 * Sessions end when their time is up through one timer per session (plus a periodic sweep); a
 * race keeps its racers' cars past that and ends their sessions itself (the race engine's
 * RaceSessions port: keepForLobby, keepForRace, releaseFromRace, endRaceSessions).
 */
import { timingSafeEqual } from 'node:crypto';
import {
  type AdminCar,
  type Car,
  type CarConfig,
  type CarSessionEndReason,
  ERROR_KEYS,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, minutesAfter } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError, minutesToWait, secondsToWait } from '../../domain-error.js';
import type { DomainEvents, EventBus } from '../../events.js';
import { type AuditAction, type AuditActor, type AuditEntry, recordAudit } from '../../kernel/audit.repo.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { LimitWindow, memoryLimiters } from '../../limit-window.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import type { SettingsService } from '../settings/settings.service.js';
import { asOf, type CarDirectory, holdsAt, type ListedCar } from './car-directory.js';
import {
  type CarPresence,
  CarPresenter,
  type CarVideoAccess,
  NO_VIDEO,
  type TelemetryElsewhere,
  type Viewer,
} from './cars.presenter.js';
import {
  type CarRow,
  type CarSessionRow,
  type CarWithHolder,
  clearControlCode,
  configOf,
  type EndedSession,
  endExpiredSessions,
  endSessionsOfCar,
  endSessionsOfUser,
  findLiveCar,
  findLiveCarsNamed,
  findLiveSessionByToken,
  findLiveSessionOfCar,
  findOtherLiveCarWithLapCounterId,
  insertCar,
  insertSession,
  listCarsWithHolders,
  listLiveSessions,
  lockLiveCar,
  markCarDeleted,
  recordWrongCode,
  setCarConfig,
  setCarSecret,
  setControlCode,
  setLapCounterId,
  setSessionControlToken,
  setSessionEnd,
} from './cars.repo.js';
import { newControlCode } from './control-code.js';

/** A members' list as made, with the directory's entries and each car's presence and holding then. */
interface ListedCars {
  entries: readonly ListedCar[];
  online: boolean[];
  held: boolean[];
  cars: Car[];
}

/** Who acts on a car: an admin, or the server itself (SYSTEM_ACTOR) for the simulated cars. */
export type Actor = AuditActor;

export const carNotFound = (): DomainError =>
  new DomainError('not_found', 'Car not found', ERROR_KEYS.carNotFound);
const invalidCode = (): DomainError =>
  new DomainError('forbidden', 'Invalid control code', ERROR_KEYS.invalidControlCode);
const carInUse = (): DomainError =>
  new DomainError('conflict', 'This car is in use by another driver.', ERROR_KEYS.carInUse);
const carOffline = (): DomainError =>
  new DomainError('conflict', 'The car is offline.', ERROR_KEYS.carOffline);
const lapCounterIdInUse = (): DomainError =>
  new DomainError('conflict', 'Another car already has this lap counter id.', ERROR_KEYS.lapCounterIdInUse);

/** Wrong tries on one car after which its code is dead (an admin generates a new one). */
export const CODE_FAILURES_PER_CAR = 10;
/** Wrong codes one member may type per rolling hour, across cars and addresses. */
export const WRONG_CODES_PER_MEMBER_PER_HOUR = 20;
export const WRONG_CODES_WINDOW_MS = 60 * 60_000;
export const DEFAULT_CONTROL_CODE_TTL_MINUTES = 15;

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

/** The `car.created` fact of a new row. */
export function carCreated(car: CarRow): DomainEvents['car.created'] {
  return {
    carId: car.id,
    name: car.name,
    imageUrl: car.imageUrl,
    streamId: car.streamId,
    config: configOf(car),
  };
}

/** Whether `given` opens the car at `now`: its current code, not expired (compared in constant time). */
function opensCar(given: string, car: CarRow, now: Date): boolean {
  const expected = car.controlCode;
  if (expected === null || car.controlCodeExpiresAt === null) return false;
  if (car.controlCodeExpiresAt.getTime() <= now.getTime()) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface CarsServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The members' list and status, answered from memory once loaded (see car-directory.ts). */
  directory: CarDirectory;
  presence: CarPresence;
  /** Several instances: the cars' telemetry recorded where they are, for the admin's list. */
  telemetryElsewhere?: TelemetryElsewhere;
  video?: CarVideoAccess;
  /** The admin's settings (the session duration), in memory. */
  settings: Pick<SettingsService, 'get'>;
  /** CONTROL_CODE_TTL_MINUTES: how long a generated code opens its car. */
  controlCodeTtlMinutes?: number;
  /**
   * Wrong control codes per member (WRONG_CODES_PER_MEMBER_PER_HOUR an hour): in memory
   * by default, shared by every instance with REDIS_URL (scale-out/limit-stores.ts).
   */
  codeBudget?: LimitWindow<number>;
}

export class CarsService {
  readonly #timers = new Map<number, ReturnType<Clock['setTimeout']>>();
  readonly #codeBudget: LimitWindow<number>;
  #sweeper: ReturnType<Clock['setInterval']> | undefined;
  readonly db: Db;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly directory: CarDirectory;
  readonly presence: CarPresence;
  readonly telemetryElsewhere: TelemetryElsewhere | null;
  readonly video: CarVideoAccess;
  readonly settings: Pick<SettingsService, 'get'>;
  readonly controlCodeTtlMinutes: number;
  readonly #presenter: CarPresenter;
  /** The last members' list made from the directory, with what it showed (see `list`). */
  #listed: ListedCars | null = null;

  constructor(deps: CarsServiceDeps) {
    this.db = deps.db;
    this.events = deps.bus;
    this.clock = deps.clock;
    this.log = deps.log;
    this.directory = deps.directory;
    this.presence = deps.presence;
    this.telemetryElsewhere = deps.telemetryElsewhere ?? null;
    this.video = deps.video ?? NO_VIDEO;
    this.settings = deps.settings;
    this.controlCodeTtlMinutes = deps.controlCodeTtlMinutes ?? DEFAULT_CONTROL_CODE_TTL_MINUTES;
    this.#presenter = new CarPresenter(this.presence, this.video);
    this.#codeBudget =
      deps.codeBudget ??
      new LimitWindow(
        memoryLimiters('control-codes', WRONG_CODES_PER_MEMBER_PER_HOUR, WRONG_CODES_WINDOW_MS),
      );
  }

  // ── reading ──────────────────────────────────────────────────────────────────────────────

  /**
   * The members' car list. Polled by every signed-in visitor, so once the directory is loaded the
   * answer is the same array until what it shows changes — the directory (a new `entries()`
   * array), a car's presence, or a session reaching its end — checked here without making
   * anything: the route's serializer then recognises it at once (cached-json.ts).
   */
  async list(): Promise<Car[]> {
    // Before the start-up load (migrations still running) the database answers.
    if (!this.directory.loaded)
      return (await listCarsWithHolders(this.db, this.clock.now())).map((row) => this.#presenter.car(row));
    const entries = this.directory.entries();
    const now = this.clock.now().getTime();
    const last = this.#listed;
    if (last !== null && last.entries === entries && this.#stillShows(last, now)) return last.cars;
    const online = entries.map((entry) => this.presence.isOnline(entry.car.id));
    const held = entries.map((entry) => holdsAt(entry, now));
    const cars = entries.map((entry) => this.#presenter.car(asOf(entry, now)));
    this.#listed = { entries, online, held, cars };
    return cars;
  }

  /** Whether each car's presence and holder are as when `listed` was made (no allocation). */
  #stillShows(listed: ListedCars, now: number): boolean {
    for (let index = 0; index < listed.entries.length; index += 1) {
      const entry = listed.entries[index] as ListedCar;
      if (this.presence.isOnline(entry.car.id) !== listed.online[index]) return false;
      if (holdsAt(entry, now) !== listed.held[index]) return false;
    }
    return true;
  }

  async listAdmin(): Promise<AdminCar[]> {
    const rows = await listCarsWithHolders(this.db, this.clock.now());
    const elsewhere = await this.telemetryElsewhere?.lastOf(rows.map((row) => row.car.id));
    return this.#presenter.adminCars(rows, elsewhere);
  }

  async #row(carId: number, db: Db = this.db): Promise<CarWithHolder> {
    const [row] = await listCarsWithHolders(db, this.clock.now(), carId);
    if (!row) throw carNotFound();
    return row;
  }

  async status(carId: number, viewer: Viewer): Promise<Car> {
    if (!this.directory.loaded) return this.#presenter.carFor(await this.#row(carId), viewer);
    const row = this.directory.get(carId, this.clock.now().getTime());
    if (!row) throw carNotFound();
    return this.#presenter.carFor(row, viewer);
  }

  async adminCar(carId: number): Promise<AdminCar> {
    const row = await this.#row(carId);
    const elsewhere = await this.telemetryElsewhere?.lastOf([carId]);
    return this.#presenter.adminCar(row, elsewhere?.get(carId));
  }

  // ── driving ──────────────────────────────────────────────────────────────────────────────

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
    this.#emitEnded(await endExpiredSessions(this.db, this.clock.now(), carId), 'session_expired');
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
    return { car: await this.status(carId, { id: user.id, isAdmin: user.isAdmin }), controlToken };
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
    this.#emitEnded(await endExpiredSessions(this.db, this.clock.now()), 'session_expired');
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

  /** The car the secret opens, or null (unknown car, deleted car or wrong secret). */
  async carForSecret(carId: number, secret: string): Promise<CarRow | null> {
    const car = await findLiveCar(this.db, carId);
    if (!car) return null;
    const a = Buffer.from(hashToken(secret));
    const b = Buffer.from(car.secretHash);
    return a.length === b.length && timingSafeEqual(a, b) ? car : null;
  }

  /** The live cars with these names (the simulated cars are found by name). */
  liveCarsNamed(names: string[]): Promise<CarRow[]> {
    return findLiveCarsNamed(this.db, names);
  }

  /** Ends every session of the member (ban, account deletion). */
  async endSessionsOfUser(userId: number, reason: CarSessionEndReason): Promise<void> {
    const ended = await endSessionsOfUser(this.db, userId, reason, this.clock.now());
    this.#emitEnded(ended, reason);
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
    this.#emitEnded(ended, 'race_ended');
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
    else
      this.#emitEnded(await endExpiredSessions(this.db, this.clock.now(), session.carId), 'session_expired');
    return session;
  }

  /** Ends the sessions whose time is up; the timers call it, tests may too. */
  async sweepExpired(): Promise<void> {
    const ended = await endExpiredSessions(this.db, this.clock.now());
    this.#emitEnded(ended, 'session_expired');
  }

  #emitEnded(sessions: EndedSession[], reason: CarSessionEndReason): void {
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

  // ── admin ────────────────────────────────────────────────────────────────────────────────

  async create(actor: Actor, input: { name: string; image_url: string | null }) {
    const secret = newOpaqueToken();
    const row = await this.db.transaction(async (tx) => {
      const car = await insertCar(tx, {
        name: input.name,
        imageUrl: input.image_url,
        secretHash: hashToken(secret),
      });
      await recordAudit(tx, {
        actor,
        action: 'car.create',
        targetType: 'car',
        targetId: car.id,
        before: null,
        after: { name: car.name, image_url: car.imageUrl },
      });
      return car;
    });
    this.events.emit('car.created', carCreated(row));
    return { car: await this.#presenter.adminCar({ car: row, session: null, username: null }), secret };
  }

  /** A new secret; the car's current socket is closed and must dial again with it. */
  async rotateSecret(actor: Actor, carId: number): Promise<string> {
    const secret = newOpaqueToken();
    await this.#auditedCarAction(
      actor,
      carId,
      { action: 'car.rotate-secret', after: { rotated: true } },
      (tx) => setCarSecret(tx, carId, hashToken(secret)),
    );
    this.events.emit('car.secret-rotated', { carId });
    return secret;
  }

  /** Soft delete: the session ends (`car_deleted`), the car stops and its socket closes. */
  async delete(actor: Actor, carId: number): Promise<void> {
    const ended = await this.#auditedCarAction(
      actor,
      carId,
      { action: 'car.delete', before: (car) => ({ name: car.name }), after: { deleted: true } },
      async (tx) => {
        const now = this.clock.now();
        const sessions = await endSessionsOfCar(tx, carId, 'car_deleted', now);
        await markCarDeleted(tx, carId, now);
        return sessions;
      },
    );
    this.#emitEnded(ended, 'car_deleted');
    this.events.emit('car.deleted', { carId });
  }

  /**
   * A new single-use code living CONTROL_CODE_TTL_MINUTES; it replaces the previous one and starts
   * the count of wrong tries again.
   */
  async generateCode(actor: Actor, carId: number): Promise<string> {
    const code = newControlCode();
    const expiresAt = minutesAfter(this.clock.now(), this.controlCodeTtlMinutes);
    // The code itself is a credential: the append-only log never keeps it.
    await this.#auditedCarAction(
      actor,
      carId,
      { action: 'car.generate-code', after: { code_generated: true } },
      (tx) => setControlCode(tx, carId, code, expiresAt),
    );
    this.events.emit('car.code-generated', { carId, expiresAt: expiresAt.toISOString() });
    return code;
  }

  /** Ends the current driver's session. Idempotent: with nobody driving it only says so. */
  async kick(actor: Actor, carId: number): Promise<string> {
    this.#emitEnded(await endExpiredSessions(this.db, this.clock.now(), carId), 'session_expired');
    const kicked = await this.db.transaction(async (tx) => {
      if (!(await lockLiveCar(tx, carId))) throw carNotFound();
      const sessions = await endSessionsOfCar(tx, carId, 'kicked', this.clock.now());
      for (const session of sessions) {
        await recordAudit(tx, {
          actor,
          action: 'car.kick',
          targetType: 'car',
          targetId: carId,
          before: { driver_id: session.userId },
          after: { driver_id: null },
        });
      }
      return sessions;
    });
    this.#emitEnded(kicked, 'kicked');
    return kicked.length > 0 ? 'The driver was disconnected.' : 'Nobody was driving this car.';
  }

  async command(actor: Actor, carId: number, command: 'reboot' | 'shutdown'): Promise<void> {
    await this.#auditedCarAction(actor, carId, { action: 'car.command', after: { command } }, async () => {
      if (!this.presence.isOnline(carId)) throw carOffline();
    });
    this.events.emit('car.command-requested', { carId, command });
  }

  async saveConfig(actor: Actor, carId: number, config: CarConfig): Promise<AdminCar> {
    await this.#auditedCarAction(
      actor,
      carId,
      { action: 'car.config', before: configOf, after: config },
      (tx) => setCarConfig(tx, carId, config),
    );
    this.events.emit('car.config-changed', { carId, config });
    return this.adminCar(carId);
  }

  /**
   * The car's id on the lap counter (a transponder, a pilot or `node:N`, see docs/races.md); null
   * clears it. Two live cars never share one: checked here, and the unique index settles two
   * admins saving the same id at once.
   */
  async setLapCounterId(actor: Actor, carId: number, lapCounterId: string | null): Promise<AdminCar> {
    try {
      await this.#auditedCarAction(
        actor,
        carId,
        {
          action: 'car.lap-counter-id',
          before: (car) => ({ lap_counter_id: car.lapCounterId }),
          after: { lap_counter_id: lapCounterId },
        },
        async (tx) => {
          if (lapCounterId !== null && (await findOtherLiveCarWithLapCounterId(tx, lapCounterId, carId))) {
            throw lapCounterIdInUse();
          }
          await setLapCounterId(tx, carId, lapCounterId);
        },
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw lapCounterIdInUse();
      throw error;
    }
    this.events.emit('car.lap-counter-id-changed', { carId, lapCounterId });
    return this.adminCar(carId);
  }

  /**
   * An admin action on a live car: the row is locked (not found once deleted), `act` runs and the
   * action's audit record is written in the same transaction, so neither commits without the other.
   */
  #auditedCarAction<T>(
    actor: Actor,
    carId: number,
    audit: {
      action: AuditAction;
      before?: (car: CarRow) => AuditEntry['before'];
      after: AuditEntry['after'];
    },
    act: (tx: Db) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      const car = await lockLiveCar(tx, carId);
      if (!car) throw carNotFound();
      const result = await act(tx);
      await recordAudit(tx, {
        actor,
        action: audit.action,
        targetType: 'car',
        targetId: carId,
        before: audit.before?.(car) ?? null,
        after: audit.after,
      });
      return result;
    });
  }
}
