/**
 * The members' car list as a read model: every live car with its current driver, held in memory so
 * that `GET /api/cars` and a car's status need no query. Loaded once after the migrations, then
 * kept exact by the events every change emits after its commit (car created, config changed,
 * deleted; session started, its end moved by a race, ended; a driver renamed). Presence and
 * telemetry are not copied: they are read from the relay's memory when the answer is made. Admin
 * views keep querying the database (they show codes and secrets' state, which the list never does).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { EventHandlers } from '../../events.js';
import { type CarRow, type CarSessionRow, listCarsWithHolders } from './cars.repo.js';

/** What the members' views show of a car and its holder (a `CarWithHolder` is one too). */
export interface ListedCar {
  car: Pick<
    CarRow,
    | 'id'
    | 'name'
    | 'imageUrl'
    | 'streamId'
    | 'configForwardSpeed'
    | 'configBackwardSpeed'
    | 'configSteeringTrim'
  >;
  session: Pick<CarSessionRow, 'id' | 'userId' | 'expiresAt'> | null;
  username: string | null;
}

/** Whether the entry's session still holds its car at `now` (its end not reached). */
export function holdsAt(entry: ListedCar, now: number): boolean {
  return entry.session !== null && entry.session.expiresAt.getTime() > now;
}

/** A session past its end holds the car no more, even before the expiry timer has ended it. */
export function asOf(entry: ListedCar, now: number): ListedCar {
  return entry.session && !holdsAt(entry, now) ? { ...entry, session: null, username: null } : entry;
}

export class CarDirectory {
  /** By car id; entries are replaced, never changed in place. */
  #cars = new Map<number, ListedCar>();
  /** The list in id order, rebuilt after a change. */
  #sorted: ListedCar[] | null = null;
  #loaded = false;
  /** Counts the changes applied, so a load that raced one is done again. */
  #changes = 0;
  /** Lists and cars answered from memory (tests and diagnostics). */
  readonly stats = { answered: 0 };

  readonly db: Db;
  readonly log: FastifyBaseLogger;
  /** The clock's time in ms (clock.ts): which sessions hold their car. */
  readonly now: () => number;

  constructor(deps: { db: Db; log: FastifyBaseLogger; clock: Clock }) {
    this.db = deps.db;
    this.log = deps.log;
    this.now = () => deps.clock.now().getTime();
  }

  /** False until the first load: callers then ask the database. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /**
   * What each fact changes (subscribed by the module from the start, so a change that races the
   * first load is not lost: the load runs again).
   */
  handlers(): EventHandlers {
    return {
      'car.created': ({ carId, name, imageUrl, streamId, config }) =>
        this.#set(carId, {
          car: {
            id: carId,
            name,
            imageUrl,
            streamId,
            configForwardSpeed: config.forwardSpeedPercent,
            configBackwardSpeed: config.backwardSpeedPercent,
            configSteeringTrim: config.trimValue,
          },
          session: null,
          username: null,
        }),
      'car.config-changed': ({ carId, config }) =>
        this.#update(carId, (entry) => ({
          ...entry,
          car: {
            ...entry.car,
            configForwardSpeed: config.forwardSpeedPercent,
            configBackwardSpeed: config.backwardSpeedPercent,
            configSteeringTrim: config.trimValue,
          },
        })),
      'car.deleted': ({ carId }) => this.#set(carId, null),
      'car.session-started': ({ carId, sessionId, userId, username, expiresAt }) =>
        this.#update(carId, (entry) => ({
          ...entry,
          session: { id: sessionId, userId, expiresAt: new Date(expiresAt) },
          username,
        })),
      'car.session-end-changed': ({ carId, sessionId, expiresAt }) =>
        this.#update(carId, (entry) =>
          entry.session?.id === sessionId
            ? { ...entry, session: { ...entry.session, expiresAt: new Date(expiresAt) } }
            : entry,
        ),
      'car.session-ended': ({ carId, sessionId }) =>
        this.#update(carId, (entry) =>
          entry.session?.id === sessionId ? { ...entry, session: null, username: null } : entry,
        ),
      'user.changed': ({ userId, username }) => {
        for (const entry of this.#cars.values()) {
          if (entry.session?.userId === userId) this.#set(entry.car.id, { ...entry, username });
        }
      },
    };
  }

  /** The first load, after the migrations. */
  async start(): Promise<void> {
    await this.reload();
  }

  /** Reads every live car and its holder from the database (start-up). */
  async reload(): Promise<void> {
    for (;;) {
      const before = this.#changes;
      const rows = await listCarsWithHolders(this.db, new Date(this.now()));
      if (before !== this.#changes) continue;
      this.#cars = new Map(rows.map((row) => [row.car.id, row]));
      this.#sorted = null;
      this.#loaded = true;
      this.log.debug({ cars: rows.length }, 'car directory loaded');
      return;
    }
  }

  stop(): void {
    this.#loaded = false;
  }

  /**
   * Every live car in id order as stored, sessions not checked against the clock (`holdsAt`,
   * `asOf`). The same array until the next change: its identity says whether anything changed.
   */
  entries(): readonly ListedCar[] {
    this.stats.answered += 1;
    this.#sorted ??= [...this.#cars.values()].sort((a, b) => a.car.id - b.car.id);
    return this.#sorted;
  }

  /** One live car, or undefined. */
  get(carId: number, now: number = this.now()): ListedCar | undefined {
    this.stats.answered += 1;
    const entry = this.#cars.get(carId);
    return entry && asOf(entry, now);
  }

  #update(carId: number, change: (entry: ListedCar) => ListedCar): void {
    const entry = this.#cars.get(carId);
    this.#changes += 1;
    if (entry) this.#set(carId, change(entry));
  }

  #set(carId: number, entry: ListedCar | null): void {
    this.#changes += 1;
    if (entry) this.#cars.set(carId, entry);
    else this.#cars.delete(carId);
    this.#sorted = null;
  }
}
