/**
 * Which car a lap counter's id (transponder, pilot or node) belongs to, in memory so a pass costs
 * no query: loaded from the live cars at start, then kept current by the races module's handlers
 * of `car.lap-counter-id-changed` (set) and `car.deleted` (remove).
 */
import type { Db } from '../../db/client.js';
import type { CarByLapCounterId } from './lap-counter.js';
import { listLapCounterIds } from './lap-counter-ids.repo.js';

export class LapCounterIds implements CarByLapCounterId {
  readonly #db: Db | null;
  readonly #carById = new Map<string, number>();
  readonly #idByCar = new Map<number, string>();

  /** Without a database it starts empty (tests of the adapters fill it with `set`). */
  constructor(deps: { db: Db | null }) {
    this.#db = deps.db;
  }

  async load(): Promise<void> {
    if (!this.#db) return;
    const rows = await listLapCounterIds(this.#db);
    this.#carById.clear();
    this.#idByCar.clear();
    for (const row of rows) this.set(row.carId, row.lapCounterId);
  }

  /** The car's id is now `lapCounterId` (null: it has none). */
  set(carId: number, lapCounterId: string | null): void {
    this.remove(carId);
    if (lapCounterId === null) return;
    // The database keeps ids unique among live cars; a stale holder in memory loses it.
    const holder = this.#carById.get(lapCounterId);
    if (holder !== undefined) this.#idByCar.delete(holder);
    this.#carById.set(lapCounterId, carId);
    this.#idByCar.set(carId, lapCounterId);
  }

  /** The car is gone (deleted). */
  remove(carId: number): void {
    const previous = this.#idByCar.get(carId);
    if (previous === undefined) return;
    this.#idByCar.delete(carId);
    if (this.#carById.get(previous) === carId) this.#carById.delete(previous);
  }

  carFor(lapCounterId: string): number | null {
    return this.#carById.get(lapCounterId) ?? null;
  }

  lapCounterIdOf(carId: number): string | null {
    return this.#idByCar.get(carId) ?? null;
  }
}
