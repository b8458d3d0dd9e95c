/**
 * The admin's car actions: the admin list, create, rotate the secret, delete, generate a control
 * code, kick the driver, reboot/shutdown, the limits and the lap counter id. Every change writes
 * its audit record in the same transaction; the events that make sockets act (stop the car, tell
 * the driver, close a car socket) are emitted after the commit. The sessions a change ends are
 * told by the driving sessions (driving-sessions.ts).
 */
import type { AdminCar, CarConfig } from '@telerace/protocol';
import { ERROR_KEYS } from '@telerace/protocol';
import { type Clock, minutesAfter } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError } from '../../domain-error.js';
import type { DomainEvents, EventBus } from '../../events.js';
import { type AuditAction, type AuditActor, type AuditEntry, recordAudit } from '../../kernel/audit.repo.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import {
  type CarPresence,
  CarPresenter,
  type CarVideoAccess,
  NO_VIDEO,
  type TelemetryElsewhere,
} from './cars.presenter.js';
import {
  type CarRow,
  configOf,
  endSessionsOfCar,
  findLiveCarsNamed,
  findOtherLiveCarWithLapCounterId,
  insertCar,
  listCarsWithHolders,
  lockLiveCar,
  markCarDeleted,
  setCarConfig,
  setCarSecret,
  setControlCode,
  setLapCounterId,
} from './cars.repo.js';
import { carNotFound, carWithHolder } from './cars.service.js';
import { newControlCode } from './control-code.js';
import type { DrivingSessions } from './driving-sessions.js';

/** Who acts on a car: an admin, or the server itself (SYSTEM_ACTOR) for the simulated cars. */
export type Actor = AuditActor;

const carOffline = (): DomainError =>
  new DomainError('conflict', 'The car is offline.', ERROR_KEYS.carOffline);
const lapCounterIdInUse = (): DomainError =>
  new DomainError('conflict', 'Another car already has this lap counter id.', ERROR_KEYS.lapCounterIdInUse);

export const DEFAULT_CONTROL_CODE_TTL_MINUTES = 15;

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

interface AdminCarsServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  presence: CarPresence;
  /** Several instances: the cars' telemetry recorded where they are, for the admin's list. */
  telemetryElsewhere?: TelemetryElsewhere;
  video?: CarVideoAccess;
  /** Ends what a kick or a delete ends, and tells it. */
  sessions: Pick<DrivingSessions, 'sweepExpired' | 'ended'>;
  /** CONTROL_CODE_TTL_MINUTES: how long a generated code opens its car. */
  controlCodeTtlMinutes?: number;
}

export class AdminCarsService {
  readonly db: Db;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly presence: CarPresence;
  readonly telemetryElsewhere: TelemetryElsewhere | null;
  readonly sessions: Pick<DrivingSessions, 'sweepExpired' | 'ended'>;
  readonly controlCodeTtlMinutes: number;
  readonly #presenter: CarPresenter;

  constructor(deps: AdminCarsServiceDeps) {
    this.db = deps.db;
    this.events = deps.bus;
    this.clock = deps.clock;
    this.presence = deps.presence;
    this.telemetryElsewhere = deps.telemetryElsewhere ?? null;
    this.sessions = deps.sessions;
    this.controlCodeTtlMinutes = deps.controlCodeTtlMinutes ?? DEFAULT_CONTROL_CODE_TTL_MINUTES;
    this.#presenter = new CarPresenter({ presence: this.presence, video: deps.video ?? NO_VIDEO });
  }

  async listAdmin(): Promise<AdminCar[]> {
    const rows = await listCarsWithHolders(this.db, this.clock.now());
    const elsewhere = await this.telemetryElsewhere?.lastOf(rows.map((row) => row.car.id));
    return this.#presenter.adminCars(rows, elsewhere);
  }

  async adminCar(carId: number): Promise<AdminCar> {
    const row = await carWithHolder(this.db, this.clock, carId);
    const elsewhere = await this.telemetryElsewhere?.lastOf([carId]);
    return this.#presenter.adminCar(row, elsewhere?.get(carId));
  }

  /** The live cars with these names (the simulated cars are found by name). */
  liveCarsNamed(names: string[]): Promise<CarRow[]> {
    return findLiveCarsNamed(this.db, names);
  }

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
    this.sessions.ended(ended, 'car_deleted');
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
    await this.sessions.sweepExpired(carId);
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
    this.sessions.ended(kicked, 'kicked');
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
