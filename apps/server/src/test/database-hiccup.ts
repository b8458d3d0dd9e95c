/**
 * Test support: database hiccups, made by the database itself.
 *
 * `failNextWrites`: the next `times` writes (insert or update) of a table fail with PostgreSQL's
 * serialization_failure (40001, a failure a real server gives under load and that a retry
 * clears), from a trigger created through the app's own connection, so the service, its
 * transaction and its error handling run exactly as in production.
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

/** A read held by `holdReads`, and how to let it (and everything queued behind it) through. */
export interface HeldReads {
  release(): Promise<void>;
}

/**
 * `holdReads`: a slow read, made by the database. A transaction through the app's own connection
 * takes the table's ACCESS EXCLUSIVE lock, so every read of it waits until `release()`: on
 * PostgreSQL only that table's readers wait; PGlite has one connection, so every query waits
 * there. The server's code runs unchanged up to the read, which then answers as usual. Resolves
 * once the lock is held.
 */
export async function holdReads(db: Db, table: 'users' | 'car_sessions'): Promise<HeldReads> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = () => {};
  const locked = new Promise<void>((resolve) => {
    held = resolve;
  });
  const transaction = db.transaction(async (tx) => {
    await tx.execute(sql.raw(`lock table ${table} in access exclusive mode`));
    held();
    await released;
  });
  await Promise.race([locked, transaction]);
  return {
    async release() {
      release();
      await transaction;
    },
  };
}
