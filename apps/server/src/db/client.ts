/**
 * The database connection: real PostgreSQL (pg Pool) when DATABASE_URL is set, otherwise the
 * embedded PGlite. Both speak the same PostgreSQL SQL, so the rest of the server sees one drizzle
 * `Db` type and never asks which one it got (except health, which reports it).
 *
 * Both open on the first query, not when the app is built: a server that fails to start (port
 * taken) must not have created, recovered or written the database folder.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { restrictModes } from './data-dir-modes.js';
import { emptyClusterFor } from './empty-cluster.js';
import { migratePglite, migratePostgres } from './migrate.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type DatabaseKind = 'pglite' | 'postgres';

/** What GET /metrics reads of the PostgreSQL pool (pg's Pool has these). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface Database {
  readonly db: Db;
  readonly kind: DatabaseKind;
  /** The connection pool on PostgreSQL; PGlite has none (one connection, no queue it shows). */
  readonly pool?: PoolCounts;
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

/** Opens lazily: nothing happens here, the first query opens the database and waits for it. */
export function openDatabase(options: DatabaseOptions): Database {
  return options.kind === 'postgres'
    ? openPostgres(options.url, options.onPoolError)
    : openPglite(options.dataDir);
}

function openPglite(dataDir: string): Database {
  return pgliteDatabase(() => openPgliteFolder(dataDir));
}

/**
 * Opens (creating it if needed) a PGlite folder and waits until it answers. The caller holds the
 * DATA_DIR lock (data-dir-lock.ts).
 */
export async function openPgliteFolder(
  dataDir: string,
  options: {
    /** The cluster to unpack into the folder (a restore); else a new one is the empty cluster. */
    loadDataDir?: Blob;
    /** The empty cluster's archive (empty-cluster.ts); tests pass their own. */
    emptyClusterArchive?: string;
  } = {},
): Promise<PGlite> {
  // PGlite creates its own folder but not the parents.
  mkdirSync(dirname(dataDir), { recursive: true });
  const emptyCluster =
    options.loadDataDir === undefined ? emptyClusterFor(dataDir, options.emptyClusterArchive) : undefined;
  const isNew = !existsSync(dataDir);
  let client: PGlite;
  try {
    client = await readyPglite(dataDir, options.loadDataDir ?? emptyCluster);
  } catch (error) {
    // An archive that would not unpack into a folder that did not exist: initdb instead.
    if (emptyCluster === undefined || !isNew) throw error;
    rmSync(dataDir, { recursive: true, force: true });
    client = await readyPglite(dataDir, undefined);
  }
  // A new or restored cluster is unpacked with the modes stored in PGlite's archive (0666).
  restrictModes(dataDir);
  return client;
}

async function readyPglite(dataDir: string, loadDataDir: Blob | undefined): Promise<PGlite> {
  const client = new PGlite(dataDir, loadDataDir ? { loadDataDir } : {});
  await client.waitReady;
  return client;
}

/** What the drizzle database uses of a PGlite instance (tests pass a reused one: test/pglite-pool.ts). */
export type PgliteClient = Pick<PGlite, 'waitReady' | 'query' | 'transaction' | 'close'>;

/**
 * The drizzle database over a PGlite instance, or over one opened on the first query. Tests pass
 * an instance made elsewhere (started from a snapshot, skipping initdb).
 */
export function pgliteDatabase(client: PgliteClient | (() => Promise<PGlite>)): Database {
  const open = typeof client === 'function' ? client : () => client.waitReady.then(() => client);
  let opened: Promise<PgliteClient> | undefined;
  let closed = false;
  const connection = (): Promise<PgliteClient> => {
    if (closed) return Promise.reject(new Error('the database is closed'));
    opened ??= open();
    return opened;
  };
  // drizzle's PGlite session calls only these two methods of its client.
  const lazyClient = {
    query: (...args: Parameters<PGlite['query']>) => connection().then((pglite) => pglite.query(...args)),
    transaction: <T>(callback: (tx: Transaction) => Promise<T>) =>
      connection().then((pglite) => pglite.transaction(callback)),
  } as unknown as PGlite;
  const db = drizzlePglite({ client: lazyClient, schema });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'pglite',
    async ping() {
      await db.execute(sql`select 1`);
    },
    migrate: (migrationsFolder) => migratePglite(db, migrationsFolder),
    close() {
      closed = true;
      // An instance given to us is closed even if it was never queried; one we open, only if opened.
      const instance = typeof client === 'function' ? opened : (opened ?? open());
      closing ??= (instance ?? Promise.resolve(undefined)).then(
        (pglite) => pglite?.close(),
        () => undefined,
      );
      return closing;
    },
  };
}

function openPostgres(url: string, onPoolError?: (error: Error) => void): Database {
  const pool = new pg.Pool({
    connectionString: url,
    // Without it a dead server makes queries (and /api/ready) hang instead of failing; it also
    // bounds the wait for a free client, so a request never waits on the pool past it.
    connectionTimeoutMillis: 3_000,
  });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it kills the process.
  pool.on('error', (error) => onPoolError?.(error));
  // A client checked out (a transaction between two queries, waiting on a password hash) that
  // loses its connection emits 'error' on itself, where pg-pool listens only while it is idle:
  // unhandled, that ended the process when PostgreSQL was killed under load. The transaction's
  // next query fails ("not queryable") and says so to its caller; the pool drops the client.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = drizzleNodePostgres({ client: pool, schema });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'postgres',
    pool,
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
