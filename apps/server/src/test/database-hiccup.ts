/**
 * Test support: a database hiccup, made by the database itself. The next `times` writes (insert
 * or update) of a table fail with PostgreSQL's serialization_failure (40001, a failure a real
 * server gives under load and that a retry clears), from a trigger created through the app's own
 * connection, so the service, its transaction and its error handling run exactly as in production.
 *
 * The count is a sequence: `nextval` is not rolled back with the failed write, so the hiccup
 * passes after `times` attempts whatever the transactions around them did.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';

export interface DatabaseHiccup {
  /** How many writes it has refused so far. */
  refused(): Promise<number>;
  /** Drops the trigger, its function and its counter. */
  remove(): Promise<void>;
}

/** The tables a platform's ticket writes go to. */
export type HiccupTable = 'ticket_ledger' | 'subscriptions' | 'webhook_deliveries';

export async function failNextWrites(db: Db, table: HiccupTable, times = 1): Promise<DatabaseHiccup> {
  const name = `hiccup_${randomBytes(4).toString('hex')}`;
  const statements = [
    `create sequence ${name}`,
    `create function ${name}() returns trigger language plpgsql as $$
     begin
       if nextval('${name}') <= ${times} then
         raise exception 'database hiccup (made by a test)' using errcode = '40001';
       end if;
       return new;
     end $$`,
    `create trigger ${name} before insert or update on ${table}
     for each row execute function ${name}()`,
  ];
  for (const statement of statements) await db.execute(sql.raw(statement));
  return {
    async refused() {
      const result = await db.execute(sql.raw(`select last_value, is_called from ${name}`));
      const row = (result as unknown as { rows: { last_value: string | number; is_called: boolean }[] })
        .rows[0];
      return row?.is_called ? Math.min(times, Number(row.last_value)) : 0;
    },
    async remove() {
      await db.execute(sql.raw(`drop trigger if exists ${name} on ${table}`));
      await db.execute(sql.raw(`drop function if exists ${name}()`));
      await db.execute(sql.raw(`drop sequence if exists ${name}`));
    },
  };
}
