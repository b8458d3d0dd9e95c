/**
 * Migrated in-memory PGlite clusters, reused by the tests of one worker. Starting a cluster from
 * the migrated snapshot costs about half a second of CPU (a second on a loaded machine: the WASM
 * module started, the archive unpacked), and the pglite project starts one for almost every test;
 * putting a cluster back as the snapshot left it costs a few tens of milliseconds: every table
 * emptied, the rows the migrations wrote put back, every sequence where it was, the session's
 * state discarded (locks, prepared statements, settings).
 *
 * A cluster a test changed beyond its rows (a trigger, a function, a sequence or a column of its
 * own, an open transaction) is closed instead of reused: its schema's fingerprint no longer
 * matches the snapshot's. A test sees a cluster indistinguishable from a fresh one by SQL: the
 * same tables, rows, sequences and session.
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { PgliteClient } from '../db/client.js';

/** What a fresh cluster holds beyond its schema, and the schema's fingerprint. */
interface Baseline {
  /** Every table, quoted (`"public"."users"`). */
  tables: string[];
  /** The rows of the tables the migrations wrote to, as JSON, with the columns to insert. */
  seeds: { table: string; columns: string; rows: string }[];
  /** Run once the rows are back: every sequence set where the dump had it, every materialized view refreshed. */
  afterRows: string;
  fingerprint: string;
}

/** A cluster is closed after this many tests, so a long worker's WASM heap does not keep growing. */
const MAX_USES = 100;
/** Idle clusters kept per worker: a test that ran several apps at once leaves no more than this behind. */
const MAX_IDLE = 3;

const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`;

/**
 * One text for everything a test could create or change beside rows: relations and their columns
 * (defaults included), constraints, indexes, functions, triggers and enum labels. (A transaction
 * left open makes the reset's `discard all` fail: that cluster is closed too.)
 */
const FINGERPRINT = `
select md5(coalesce(string_agg(item, E'\\n' order by item), '')) as fingerprint
from (
  select 'rel ' || c.oid::regclass::text || ' ' || c.relkind::text || ' ' || coalesce((
    select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
      || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' order by a.attnum)
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '') as item
  from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS}
  union all
  select 'con ' || co.conrelid::regclass::text || ' ' || co.conname || ' ' || pg_get_constraintdef(co.oid)
  from pg_constraint co join pg_namespace n on n.oid = co.connamespace where ${USER_SCHEMAS}
  union all
  select 'idx ' || indexdef from pg_indexes where schemaname not in ('pg_catalog', 'information_schema')
  union all
  select 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc)
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMAS}
  union all
  select 'trg ' || tgrelid::regclass::text || ' ' || tgname from pg_trigger where not tgisinternal
  union all
  select 'enum ' || enumtypid::regtype::text || ' ' || enumlabel || ' ' || enumsortorder from pg_enum
) items`;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function fingerprintOf(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ fingerprint: string }>(FINGERPRINT);
  return rows[0]?.fingerprint ?? '';
}

/** Reads what a fresh cluster holds: run once, on the worker's first cluster, before any test uses it. */
async function baselineOf(pglite: PGlite): Promise<Baseline> {
  const { rows: tableRows } = await pglite.query<{ schema: string; name: string }>(
    `select n.nspname as schema, c.relname as name from pg_class c
     join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and ${USER_SCHEMAS} order by 1, 2`,
  );
  const tables = tableRows.map((row) => `${quote(row.schema)}.${quote(row.name)}`);
  const seeds: Baseline['seeds'] = [];
  for (const table of tables) {
    const { rows } = await pglite.query<{ rows: string | null }>(
      `select json_agg(t)::text as rows from ${table} t`,
    );
    const json = rows[0]?.rows;
    if (!json) continue;
    // Generated columns are computed again on insert (they cannot be written).
    const { rows: columnRows } = await pglite.query<{ name: string }>(
      `select attname as name from pg_attribute
       where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      [table],
    );
    seeds.push({ table, columns: columnRows.map((row) => quote(row.name)).join(', '), rows: json });
  }
  const { rows: sequenceRows } = await pglite.query<{ statement: string }>(
    `select format('select setval(%L, %s, %s);', format('%I.%I', schemaname, sequencename),
       coalesce(last_value, start_value), case when last_value is null then 'false' else 'true' end) as statement
     from pg_sequences`,
  );
  // None today; one added later is computed again from the restored rows.
  const { rows: viewRows } = await pglite.query<{ statement: string }>(
    `select format('refresh materialized view %I.%I;', schemaname, matviewname) as statement from pg_matviews`,
  );
  return {
    tables,
    seeds,
    afterRows: [...sequenceRows, ...viewRows].map((row) => row.statement).join('\n'),
    fingerprint: await fingerprintOf(pglite),
  };
}

/** Puts the cluster back as the snapshot left it; false when it cannot be (then it is closed). */
async function reset(pglite: PGlite, baseline: Baseline): Promise<boolean> {
  if ((await fingerprintOf(pglite)) !== baseline.fingerprint) return false;
  await pglite.exec('discard all');
  await pglite.transaction(async (tx: Transaction) => {
    await tx.exec(`truncate ${baseline.tables.join(', ')} restart identity cascade`);
    for (const seed of baseline.seeds)
      await tx.query(
        `insert into ${seed.table} (${seed.columns}) overriding system value
         select ${seed.columns} from json_populate_recordset(null::${seed.table}, $1)`,
        [seed.rows],
      );
    await tx.exec(baseline.afterRows);
  });
  return true;
}

interface Pooled {
  pglite: PGlite;
  uses: number;
}

const idle: Pooled[] = [];
let baseline: Promise<Baseline> | undefined;

/**
 * A migrated in-memory cluster for one test app: a reused one when the worker has one idle, else
 * one started from `snapshot`. Closing the client gives the cluster back; the client refuses
 * every call after that, so a late query of the app that held it never reaches the next test's.
 */
export async function borrowMigratedPglite(snapshot: () => Promise<Blob>): Promise<PgliteClient> {
  let pooled = idle.pop();
  if (!pooled) {
    const pglite = new PGlite({ loadDataDir: await snapshot() });
    await pglite.waitReady;
    baseline ??= baselineOf(pglite);
    await baseline;
    pooled = { pglite, uses: 0 };
  }
  pooled.uses += 1;
  const { pglite } = pooled;
  let returned: Promise<void> | undefined;
  const open = () => {
    if (returned) throw new Error('the database is closed');
    return pglite;
  };
  return {
    waitReady: Promise.resolve(),
    query: ((...args: Parameters<PGlite['query']>) => open().query(...args)) as PGlite['query'],
    transaction: ((callback: (tx: Transaction) => Promise<unknown>) =>
      open().transaction(callback)) as PGlite['transaction'],
    close: () => {
      returned ??= giveBack(pooled);
      return returned;
    },
  };
}

async function giveBack(pooled: Pooled): Promise<void> {
  const reusable =
    pooled.uses < MAX_USES &&
    idle.length < MAX_IDLE &&
    baseline !== undefined &&
    (await reset(pooled.pglite, await baseline).catch(() => false));
  if (reusable) idle.push(pooled);
  else await pooled.pglite.close();
}
