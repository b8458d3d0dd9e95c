/** The cars' lap counter ids: the only SQL of the lap counter mapping. */
import { and, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cars } from '../../db/schema.js';

export async function listLapCounterIds(db: Db): Promise<{ carId: number; lapCounterId: string }[]> {
  const rows = await db
    .select({ carId: cars.id, lapCounterId: cars.lapCounterId })
    .from(cars)
    .where(and(isNull(cars.deletedAt), isNotNull(cars.lapCounterId)));
  return rows.flatMap((row) =>
    row.lapCounterId === null ? [] : [{ carId: row.carId, lapCounterId: row.lapCounterId }],
  );
}
