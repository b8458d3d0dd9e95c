/**
 * Applies the committed SQL migrations (apps/server/drizzle) with drizzle's migrator for the
 * driver in use. Called at start-up, after the server already listens, so /api/ready can say
 * "not ready" meanwhile.
 */
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migrateWithPglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import type * as schema from './schema.js';

/** Arbitrary constant: the key of the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK_KEY = 727_274_001;

export async function migratePglite(
  db: PgliteDatabase<typeof schema>,
  migrationsFolder: string,
): Promise<void> {
  // A PGlite directory belongs to one process, so no cross-instance lock is needed.
  await migrateWithPglite(db, { migrationsFolder });
}

export async function migratePostgres(
  db: NodePgDatabase<typeof schema>,
  pool: pg.Pool,
  migrationsFolder: string,
): Promise<void> {
  // Several instances may start together: the first takes the lock and migrates, the others wait
  // for it and then find nothing left to apply. The lock lives on one dedicated connection.
  const lockClient = await pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrateNodePostgres(db, { migrationsFolder });
    } finally {
      await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    lockClient.release();
  }
}
