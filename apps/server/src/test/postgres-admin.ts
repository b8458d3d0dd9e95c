/**
 * The PostgreSQL server of the postgres test project: TEST_PG_ADMIN_URL (default: the local
 * server as `postgres`), on which tests create and drop their own databases.
 */
import pg from 'pg';

const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of database `name` on the admin URL's server. */
export function postgresUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement as the admin (CREATE / DROP DATABASE). */
export async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The postgres test project needs a PostgreSQL server at ${ADMIN_URL} (set TEST_PG_ADMIN_URL): ${(error as Error).message}`,
    );
  }
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
