import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../paths.js';
import { buildTestApp, createTestEnvironment, TEST_DB_KIND } from '../test/app.js';
import { appSettings } from './schema.js';

describe('database', () => {
  it('applies every migration to an empty database, and keeps data across restarts (PGlite under DATA_DIR/db, or the PostgreSQL database)', async () => {
    // Empty: the other tests start from a migrated copy (test/migrated-databases.ts).
    const environment = await createTestEnvironment({}, { emptyDatabase: true });
    try {
      const first = await buildTestApp(environment, { persistentDatabase: true });
      const [fromNothing] = await first.app.database.db
        .select({ count: sql<number>`count(*)::int` })
        .from(sql`drizzle.__drizzle_migrations`);
      expect(fromNothing?.count).toBe(migrationCount());
      expect(first.logLines().some((line) => line.msg === 'database migrations applied')).toBe(true);
      await first.app.database.db
        .insert(appSettings)
        .values({ key: 'car_session_duration_minutes', value: { minutes: 12 } });
      await first.app.close();

      if (TEST_DB_KIND === 'pglite')
        expect(existsSync(join(environment.dataDir, 'db', 'PG_VERSION'))).toBe(true);

      const second = await buildTestApp(environment, { persistentDatabase: true });
      try {
        const rows = await second.app.database.db
          .select()
          .from(appSettings)
          .where(eq(appSettings.key, 'car_session_duration_minutes'));
        expect(rows).toHaveLength(1);
        expect(rows[0]?.value).toEqual({ minutes: 12 });
        expect(rows[0]?.updatedAt).toBeInstanceOf(Date);
        // The second start found every migration applied and applied none twice.
        const [applied] = await second.app.database.db
          .select({ count: sql<number>`count(*)::int` })
          .from(sql`drizzle.__drizzle_migrations`);
        expect(applied?.count).toBe(migrationCount());
      } finally {
        await second.app.close();
      }
    } finally {
      await environment.dispose();
    }
  });

  it('fails the start-up clearly when the database cannot be reached', async () => {
    const environment = await createTestEnvironment({
      // Nothing listens on port 9: the connection is refused at once.
      DATABASE_URL: 'postgres://postgres@127.0.0.1:9/telerace',
    });
    try {
      const { app, logText } = await buildTestApp(environment, { waitForMigrations: false });
      try {
        await expect(app.migrated()).rejects.toThrow(/ECONNREFUSED/);
        expect(logText()).toContain('database migrations failed');
        const ready = await app.inject('/api/ready');
        expect(ready.statusCode).toBe(503);
        expect((await app.inject('/api/health')).json()).toEqual({ status: 'ok' });
        expect(await app.health.details()).toMatchObject({ db: 'postgres' });
      } finally {
        await app.close();
      }
    } finally {
      await environment.dispose();
    }
  });
});

/** The committed migrations (SQL files in apps/server/drizzle). */
function migrationCount(): number {
  return readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql')).length;
}
