/**
 * A pooled PostgreSQL connection lost while it is checked out — a transaction waiting between two
 * queries (on a password hash, say) when the server is killed or the backend terminated. pg emits
 * 'error' on such a client, where pg-pool listens only while it is idle: without a listener of
 * ours that ended the process (found by killing PostgreSQL under load, docs/reliability.md).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../test/app.js';
import { adminQuery } from '../test/postgres-admin.js';
import { type Database, openDatabase } from './client.js';
import { isDatabaseUnavailable } from './unavailable.js';

describe('a connection lost in the middle of a transaction', () => {
  let environment: TestEnvironment;
  let database: Database;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = openDatabase({ kind: 'postgres', url: environment.env.DATABASE_URL as string });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await database?.close();
    await environment?.dispose();
  });

  it('fails that transaction as "database unavailable", crashes nothing, and the pool goes on', async () => {
    const transaction = database.db.transaction(async (tx) => {
      const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as {
        rows: { pid: number }[];
      };
      // Between two queries, as a login waits on its password hash: the backend is terminated.
      await adminQuery(`select pg_terminate_backend(${Number(rows[0]?.pid)})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx.execute(sql`select 1`);
    });

    const failure = await transaction.then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure), String(failure)).toBe(true);
    expect(uncaught).toEqual([]);
    await expect(database.ping()).resolves.toBeUndefined();
  });
});
