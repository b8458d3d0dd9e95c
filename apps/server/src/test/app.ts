/**
 * Test support: a real app on a fresh temporary DATA_DIR and a fresh database — in-memory PGlite,
 * or (TEST_DB=postgres) a uniquely named PostgreSQL database created from TEST_PG_ADMIN_URL and
 * dropped afterwards. The log is captured so tests can read what the server wrote.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../app.js';
import type { BuildAppOptions } from '../app-options.js';
import { type Config, loadConfig } from '../config.js';
import { type Database, pgliteDatabase } from '../db/client.js';
import { exposeServices } from './app-services.js';
import { borrowMigratedPglite } from './pglite-pool.js';
import { adminQuery, postgresUrl } from './postgres-admin.js';

export const TEST_DB_KIND: 'pglite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

export interface TestEnvironment {
  dataDir: string;
  /** Whether the database starts without the migrations (default: migrated, see migrated-databases.ts). */
  emptyDatabase: boolean;
  /** Environment for loadConfig (or a spawned server): DATA_DIR, DATABASE_URL on postgres, … */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * A temporary DATA_DIR, and on the postgres project a new database: a copy of the migrated
 * template, or with `emptyDatabase` an empty one (the app then applies every migration).
 */
export async function createTestEnvironment(
  extraEnv: Record<string, string> = {},
  { emptyDatabase = false }: { emptyDatabase?: boolean } = {},
): Promise<TestEnvironment> {
  const dataDir = await mkdtemp(join(tmpdir(), 'telerace-test-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'info',
    // No web build unless a test provides one: apps/web/dist comes and goes with other builds.
    WEB_DIST_DIR: join(dataDir, 'no-web-build'),
    // No Janus per test app: the video tests turn it on (VIDEO=auto).
    VIDEO: 'off',
  };
  let dropDatabase = async () => {};
  if (TEST_DB_KIND === 'postgres') {
    const name = `telerace_test_${randomBytes(6).toString('hex')}`;
    const template = emptyDatabase ? '' : ` TEMPLATE "${inject('postgresTemplate')}"`;
    await adminQuery(`CREATE DATABASE "${name}"${template}`);
    env.DATABASE_URL = postgresUrl(name);
    dropDatabase = () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  return {
    dataDir,
    emptyDatabase,
    env: { ...env, ...extraEnv },
    async dispose() {
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let snapshot: Promise<Blob> | undefined;

/**
 * A PGlite as the migrated cluster saved by migrated-databases.ts left it: in memory (a reused
 * one, reset: test/pglite-pool.ts), or started from it in a new data directory. An existing
 * directory, or an empty database asked for, is left to the app's own opening code (in memory: a
 * new empty cluster).
 */
async function pgliteFromSnapshot(
  config: Config,
  persistent: boolean,
  empty: boolean,
): Promise<Database | undefined> {
  const dataDir = join(config.dataDir, 'db');
  if (persistent && (empty || existsSync(dataDir))) return undefined;
  if (empty) return pgliteDatabase(new PGlite());
  const loadSnapshot = () => {
    snapshot ??= readFile(inject('pgliteSnapshotFile')).then((bytes) => new Blob([bytes]));
    return snapshot;
  };
  if (!persistent) return pgliteDatabase(await borrowMigratedPglite(loadSnapshot));
  return pgliteDatabase(new PGlite(dataDir, { loadDataDir: await loadSnapshot() }));
}

/**
 * Puts the migrated cluster in `DATA_DIR/db` for a server process about to start on it (pglite
 * project, no DATABASE_URL, no database there yet): the server opens it and finds nothing to
 * migrate, instead of creating a cluster and applying every migration (20–30 s on a loaded 2-core
 * machine, for each test that starts a server process).
 */
export async function seedMigratedDatabase(env: Record<string, string>): Promise<void> {
  const dataDir = env.DATA_DIR;
  if (TEST_DB_KIND !== 'pglite' || env.DATABASE_URL || !dataDir || existsSync(join(dataDir, 'db'))) return;
  const database = await pgliteFromSnapshot(loadConfig(env), true, false);
  await database?.ping();
  await database?.close();
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  /** Every log line written so far, parsed. */
  logLines(): Record<string, unknown>[];
  /** The raw log, for "never contains" assertions. */
  logText(): string;
}

export interface TestAppOptions extends BuildAppOptions {
  /**
   * Keep PGlite's data under DATA_DIR/db (persistence tests); default: in memory. The first app on
   * a DATA_DIR starts from the snapshot, later ones open the directory as the server does.
   */
  persistentDatabase?: boolean;
  /** Default true: resolve once migrations are applied. */
  waitForMigrations?: boolean;
}

export async function buildTestApp(
  environment: TestEnvironment,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const { persistentDatabase = false, waitForMigrations = true, ...appOptions } = options;
  const config = loadConfig(environment.env);
  const lines: string[] = [];
  const database =
    TEST_DB_KIND === 'pglite' && !config.databaseUrl
      ? await pgliteFromSnapshot(config, persistentDatabase, environment.emptyDatabase)
      : undefined;
  const app = await buildApp(config, {
    ...(database ? { database } : {}),
    logStream: { write: (line) => lines.push(line) },
    ...appOptions,
  });
  exposeServices(app);
  if (waitForMigrations) await app.migrated();
  return {
    app,
    config,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => lines.join(''),
  };
}

/** What `startTestApp` gives: the app, its environment and `close()`. */
export type StartedTestApp = Awaited<ReturnType<typeof startTestApp>>;

/** A test environment and an app on it; `close()` stops the app and removes both. */
export async function startTestApp(
  extraEnv: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp & { environment: TestEnvironment; close(): Promise<void> }> {
  const environment = await createTestEnvironment(extraEnv);
  try {
    const testApp = await buildTestApp(environment, options);
    return {
      ...testApp,
      environment,
      async close() {
        await testApp.app.close();
        await environment.dispose();
      },
    };
  } catch (error) {
    await environment.dispose();
    throw error;
  }
}
