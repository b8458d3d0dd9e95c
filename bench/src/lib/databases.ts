/**
 * The two databases a server bench runs on: the embedded PGlite (the default) and PostgreSQL, in
 * a throw-away database created for the run on BENCH_PG_ADMIN_URL and dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type DatabaseKind = 'pglite' | 'postgres';

/** BENCH_DATABASES=postgres (or pglite) measures on one of them only. */
export const DATABASES: readonly DatabaseKind[] = (['pglite', 'postgres'] as const).filter(
  (kind) => !process.env.BENCH_DATABASES || process.env.BENCH_DATABASES.split(',').includes(kind),
);

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  kind: DatabaseKind;
  /** Server environment selecting this database (empty for PGlite, the default). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * Prepares a database of the given kind, or returns null (with the reason printed) when
 * PostgreSQL is not reachable: the PGlite half of a bench still means something on its own.
 */
export async function openDatabase(kind: DatabaseKind): Promise<BenchDatabase | null> {
  if (kind === 'pglite') return { kind, env: {}, drop: async () => {} };
  const name = `telerace_bench_${randomBytes(6).toString('hex')}`;
  try {
    await adminQuery(`CREATE DATABASE "${name}"`);
  } catch (error) {
    console.warn(`PostgreSQL at ${ADMIN_URL} unavailable (${(error as Error).message}): skipped`);
    return null;
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    env: { DATABASE_URL: url.toString() },
    drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
