/**
 * The reused PGlite clusters of the pglite project (pglite-pool.ts): a cluster given back is, by
 * SQL, the cluster the snapshot holds — rows, sequences, session — and one whose schema a test
 * changed is never handed out again.
 */
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, inject, it } from 'vitest';
import { borrowMigratedPglite } from './pglite-pool.js';

const snapshot = () => readFile(inject('pgliteSnapshotFile')).then((bytes) => new Blob([bytes]));

/** What a test could see of a cluster: every table's row count, the seasons, every sequence, advisory locks. */
async function contents(client: { query: PGlite['query'] }): Promise<unknown> {
  const { rows: tables } = await client.query<{ name: string }>(
    `select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables order by 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await client.query<{ count: number }>(`select count(*)::int as count from ${name}`);
    counts[name] = rows[0]?.count ?? -1;
  }
  const seen = async (query: string) => (await client.query(query)).rows;
  return {
    counts,
    seasons: await seen('select * from seasons order by id'),
    sequences: await seen('select sequencename, last_value from pg_sequences order by 1'),
    locks: await seen(`select count(*)::int as held from pg_locks where locktype = 'advisory'`),
  };
}

describe('reused PGlite clusters (pglite project only)', () => {
  it('gives a cluster back as the snapshot left it: rows, sequences and session state', async () => {
    const fresh = new PGlite({ loadDataDir: await snapshot() });
    const expected = await contents(fresh);
    await fresh.close();

    const first = await borrowMigratedPglite(snapshot);
    await first.query(
      `insert into users (email, username, password_hash) values ('a@example.test', 'a', 'x'), ('b@example.test', 'b', 'x')`,
    );
    await first.query(`update seasons set name = 'changed by a test'`);
    await first.query(`insert into seasons (id, name, starts_at) values (2, 'another', now())`);
    await first.query('select pg_advisory_lock(42)');
    expect(await contents(first)).not.toEqual(expected);
    await first.close();

    const second = await borrowMigratedPglite(snapshot);
    expect(await contents(second)).toEqual(expected);
    // The first user of a fresh cluster gets id 1 again.
    const { rows } = await second.query<{ id: number }>(
      `insert into users (email, username, password_hash) values ('c@example.test', 'c', 'x') returning id`,
    );
    expect(rows[0]?.id).toBe(1);
    await second.close();
  });

  it('never hands out again a cluster whose schema a test changed', async () => {
    const changed = await borrowMigratedPglite(snapshot);
    await changed.query('create function made_by_a_test() returns int language sql as $$ select 1 $$');
    await changed.query('create sequence made_by_a_test_seq');
    await changed.close();

    const next = await borrowMigratedPglite(snapshot);
    const { rows } = await next.query<{ found: number }>(
      `select count(*)::int as found from pg_proc where proname = 'made_by_a_test'`,
    );
    expect(rows[0]?.found).toBe(0);
    await next.close();
  });

  it('refuses every call once given back, so a late query never reaches the next test', async () => {
    const client = await borrowMigratedPglite(snapshot);
    await client.close();
    expect(() => client.query('select 1')).toThrow('the database is closed');
  });
});
