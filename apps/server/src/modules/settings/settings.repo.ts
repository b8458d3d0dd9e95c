/** The run-time settings rows (app_settings: one JSON value per key). */
import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appSettings } from '../../db/schema.js';

export async function readSettingValues(db: Db, keys: readonly string[]): Promise<Map<string, unknown>> {
  const rows = await db
    .select()
    .from(appSettings)
    .where(inArray(appSettings.key, [...keys]));
  return new Map(rows.map((row) => [row.key, row.value]));
}

export async function writeSettingValue(tx: Db, key: string, value: unknown, now: Date): Promise<void> {
  await tx
    .insert(appSettings)
    .values({ key, value, updatedAt: now })
    .onConflictDoUpdate({ target: appSettings.key, set: { value: sql`excluded.value`, updatedAt: now } });
}
