/**
 * The cars' mountpoint PINs in the database (`car_video_pins`): the one truth of every instance,
 * since the driver's or an admin's request may reach another instance than the one holding the
 * car's socket (which gives the PIN to Janus). The only SQL of the video module. `changed_at` is
 * the database's time: it is for people reading the table, no logic compares it.
 */
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { carVideoPins } from '../../db/schema.js';

/** What the video service needs of the stored PINs. */
export interface VideoPins {
  /** The cars' PINs, each made with `fresh()` when the car has none yet (at once on every instance). */
  pinsOf(carIds: readonly number[], fresh: () => string): Promise<Map<number, string>>;
  /**
   * The session's end replaces the car's PIN with `pin` (called once, where the session ended); an
   * older session's end heard after a newer one's changes nothing. A car without a PIN keeps none.
   */
  rotateAfterSession(carId: number, sessionId: number, pin: string): Promise<void>;
  /** Replaces the car's PIN (an admin's demotion), whatever it was. */
  replace(carId: number, pin: string): Promise<void>;
  /** The cars that have a PIN. */
  carIds(): Promise<number[]>;
  /** The car is gone: so is its PIN. */
  remove(carId: number): Promise<void>;
}

export class DatabaseVideoPins implements VideoPins {
  private readonly db: Db;

  constructor(deps: { db: Db }) {
    this.db = deps.db;
  }

  async pinsOf(carIds: readonly number[], fresh: () => string): Promise<Map<number, string>> {
    const pins = new Map<number, string>();
    if (carIds.length === 0) return pins;
    const ids = [...new Set(carIds)];
    const read = async () => {
      const rows = await this.db
        .select({ carId: carVideoPins.carId, pin: carVideoPins.pin })
        .from(carVideoPins)
        .where(inArray(carVideoPins.carId, ids));
      for (const row of rows) pins.set(row.carId, row.pin);
    };
    await read();
    const missing = ids.filter((carId) => !pins.has(carId));
    if (missing.length === 0) return pins;
    // Two instances may make one at once: the first stored wins, and both read it back.
    await this.db
      .insert(carVideoPins)
      .values(missing.map((carId) => ({ carId, pin: fresh() })))
      .onConflictDoNothing({ target: carVideoPins.carId });
    await read();
    return pins;
  }

  async rotateAfterSession(carId: number, sessionId: number, pin: string): Promise<void> {
    // Keyed on the session: the latest end's PIN stays, whatever order the ends are written in.
    await this.db
      .update(carVideoPins)
      .set({ pin, rotatedForSessionId: sessionId, changedAt: sql`now()` })
      .where(
        and(
          eq(carVideoPins.carId, carId),
          or(isNull(carVideoPins.rotatedForSessionId), lt(carVideoPins.rotatedForSessionId, sessionId)),
        ),
      );
  }

  async replace(carId: number, pin: string): Promise<void> {
    await this.db
      .update(carVideoPins)
      .set({ pin, changedAt: sql`now()` })
      .where(eq(carVideoPins.carId, carId));
  }

  async carIds(): Promise<number[]> {
    const rows = await this.db.select({ carId: carVideoPins.carId }).from(carVideoPins);
    return rows.map((row) => row.carId);
  }

  async remove(carId: number): Promise<void> {
    await this.db.delete(carVideoPins).where(eq(carVideoPins.carId, carId));
  }
}
