/**
 * The database connection: real PostgreSQL (pg Pool) when DATABASE_URL is set, otherwise the
 * embedded PGlite. Both speak the same PostgreSQL SQL, so the rest of the server sees one drizzle
 * `Db` type and never asks which one it got (except health, which reports it).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { migratePglite, migratePostgres } from './migrate.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly db: Db;
  readonly kind: DatabaseKind;
  /** Rejects when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /** Applies the pending migrations from `migrationsFolder`. */
  migrate(migrationsFolder: string): Promise<void>;
  /** Idempotent. */
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { kind: 'postgres'; url: string; onPoolError?: (error: Error) => void }
  | { kind: 'pglite'; dataDir: string };

/** Opens lazily: nothing is awaited here, the first query waits for the connection. */
export function openDatabase(options: DatabaseOptions): Database {
  return options.kind === 'postgres'
    ? openPostgres(options.url, options.onPoolError)
    : openPglite(options.dataDir);
}

function openPglite(dataDir: string): Database {
  // PGlite creates its own folder but not the parents.
  mkdirSync(dirname(dataDir), { recursive: true });
  return pgliteDatabase(new PGlite(dataDir));
}

/** Wraps a PGlite instance made elsewhere (tests start theirs from a snapshot, skipping initdb). */
export function pgliteDatabase(client: PGlite): Database {
  const db = drizzlePglite({ client, schema });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'pglite',
    async ping() {
      await db.execute(sql`select 1`);
    },
    migrate: (migrationsFolder) => migratePglite(db, migrationsFolder),
    close() {
      closing ??= client.waitReady.then(
        () => client.close(),
        () => undefined,
      );
      return closing;
    },
  };
}

function openPostgres(url: string, onPoolError?: (error: Error) => void): Database {
  const pool = new pg.Pool({
    connectionString: url,
    // Without it a dead server makes queries (and /api/ready) hang instead of failing.
    connectionTimeoutMillis: 5_000,
  });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it kills the process.
  pool.on('error', (error) => onPoolError?.(error));
  const db = drizzleNodePostgres({ client: pool, schema });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'postgres',
    async ping() {
      await db.execute(sql`select 1`);
    },
    migrate: (migrationsFolder) => migratePostgres(db, pool, migrationsFolder),
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}
