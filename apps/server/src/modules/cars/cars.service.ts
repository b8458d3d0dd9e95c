/**
 * The members' side of the cars: the list every signed-in visitor polls, one car's status for a
 * viewer, the car socket's secret check, and what the relay and the video read of a car (its
 * limits, its stream, whether it is driven). Driving sessions live in driving-sessions.ts, the
 * admin's car actions in admin-cars.service.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import { type Car, type CarConfig, ERROR_KEYS } from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import { hashToken } from '../../tokens.js';
import { asOf, type CarDirectory, holdsAt, type ListedCar } from './car-directory.js';
import {
  type CarPresence,
  CarPresenter,
  type CarVideoAccess,
  NO_VIDEO,
  type Viewer,
} from './cars.presenter.js';
import {
  type CarRow,
  type CarWithHolder,
  findCarStreamId,
  findLiveCar,
  findLiveCarConfig,
  findLiveSessionOfCar,
  listCarsWithHolders,
} from './cars.repo.js';

/** A members' list as made, with the directory's entries and each car's presence and holding then. */
interface ListedCars {
  entries: readonly ListedCar[];
  online: boolean[];
  held: boolean[];
  cars: Car[];
}

export const carNotFound = (): DomainError =>
  new DomainError('not_found', 'Car not found', ERROR_KEYS.carNotFound);

/** The live car with its holder now, read from the database. */
export async function carWithHolder(db: Db, clock: Clock, carId: number): Promise<CarWithHolder> {
  const [row] = await listCarsWithHolders(db, clock.now(), carId);
  if (!row) throw carNotFound();
  return row;
}

export interface CarsServiceDeps {
  db: Db;
  clock: Clock;
  /** The members' list and status, answered from memory once loaded (see car-directory.ts). */
  directory: CarDirectory;
  presence: CarPresence;
  video?: CarVideoAccess;
}

export class CarsService {
  readonly db: Db;
  readonly clock: Clock;
  readonly directory: CarDirectory;
  readonly presence: CarPresence;
  readonly #presenter: CarPresenter;
  /** The last members' list made from the directory, with what it showed (see `list`). */
  #listed: ListedCars | null = null;

  constructor(deps: CarsServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.directory = deps.directory;
    this.presence = deps.presence;
    this.#presenter = new CarPresenter({ presence: this.presence, video: deps.video ?? NO_VIDEO });
  }

  /**
   * The members' car list. Polled by every signed-in visitor, so once the directory is loaded the
   * answer is the same array until what it shows changes — the directory (a new `entries()`
   * array), a car's presence, or a session reaching its end — checked here without making
   * anything: the route's cached answer then recognises it at once (http/cached-answer.ts).
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

  async status(carId: number, viewer: Viewer): Promise<Car> {
    if (!this.directory.loaded)
      return this.#presenter.carFor(await carWithHolder(this.db, this.clock, carId), viewer);
    const row = this.directory.get(carId, this.clock.now().getTime());
    if (!row) throw carNotFound();
    return this.#presenter.carFor(row, viewer);
  }

  /** The car the secret opens, or null (unknown car, deleted car or wrong secret). */
  async carForSecret(carId: number, secret: string): Promise<CarRow | null> {
    const car = await findLiveCar(this.db, carId);
    if (!car) return null;
    const a = Buffer.from(hashToken(secret));
    const b = Buffer.from(car.secretHash);
    return a.length === b.length && timingSafeEqual(a, b) ? car : null;
  }
  /**
   * A live car's limits (its `welcome`), or null when it is unknown or deleted. From the row: a
   * car may say hello before the directory has loaded.
   */
  liveConfig(carId: number): Promise<CarConfig | null> {
    return findLiveCarConfig(this.db, carId);
  }

  /** A live car's stream (its mountpoint), or null when it is unknown or deleted. */
  async streamIdOf(carId: number): Promise<number | null> {
    return (await findLiveCar(this.db, carId))?.streamId ?? null;
  }

  /** A car's stream, deleted or not (a deleted car's mountpoint still has to go). */
  formerStreamIdOf(carId: number): Promise<number | null> {
    return findCarStreamId(this.db, carId);
  }

  /** Whether a driving session holds the car now. */
  async isDriven(carId: number): Promise<boolean> {
    return (await findLiveSessionOfCar(this.db, carId, this.clock.now())) !== undefined;
  }
}
