/**
 * What the relay and the video read of a car from the database. They are built before the cars
 * service (which drives them through its ports, `CarPresence` and `CarVideoAccess`), and a car may
 * connect before the car directory is loaded, so they ask here rather than through either.
 */
import type { CarConfig } from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { findCarStreamId, findLiveCar, findLiveCarConfig, findLiveSessionOfCar } from './cars.repo.js';

export class CarLookups {
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(deps: { db: Db; clock: Clock }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
  }

  /** A live car's limits (its `welcome`), or null when it is unknown or deleted. */
  liveConfig(carId: number): Promise<CarConfig | null> {
    return findLiveCarConfig(this.#db, carId);
  }

  /** A live car's stream (its mountpoint), or null when it is unknown or deleted. */
  async streamIdOf(carId: number): Promise<number | null> {
    return (await findLiveCar(this.#db, carId))?.streamId ?? null;
  }

  /** A car's stream, deleted or not (a deleted car's mountpoint still has to go). */
  formerStreamIdOf(carId: number): Promise<number | null> {
    return findCarStreamId(this.#db, carId);
  }

  /** Whether a driving session holds the car now. */
  async isDriven(carId: number): Promise<boolean> {
    return (await findLiveSessionOfCar(this.#db, carId, this.#clock.now())) !== undefined;
  }
}
