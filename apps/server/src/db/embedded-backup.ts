/**
 * Backup and restore of the embedded database (PGlite in DATA_DIR/db), for `npm run backup` and
 * `npm run restore`. A backup is PGlite's own data-directory dump: a gzipped tar of the whole
 * cluster, taken after a checkpoint — an exact physical copy (schema, data, migration journal)
 * that PGlite restores with `loadDataDir`. It needs the same PostgreSQL major version as the
 * PGlite that reads it.
 *
 * Both take the DATA_DIR lock, so they refuse while a server runs (PGlite is single-process: there
 * is no safe way to read or replace its files under a live server) and no server starts while they
 * run. Both write with umask 077 and take the group/other bits off what PGlite unpacks.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { openPgliteFolder } from './client.js';
import { lockDataDir } from './data-dir-lock.js';
import { restrictModes } from './data-dir-modes.js';
import { writeDurably } from './durable-write.js';

/** A problem the operator fixes; the message is the one line printed. */
export class BackupError extends Error {
  override name = 'BackupError';
}

export interface BackupOptions {
  dataDir: string;
  /** Absolute path of the backup file. */
  file: string;
  /** Backup: replace an existing file. Restore: replace an existing database (kept aside). */
  force: boolean;
  /** Progress lines. */
  print: (line: string) => void;
}

export const DB_FOLDER = 'db';

export async function backupEmbeddedDatabase(
  options: BackupOptions,
): Promise<{ accounts: number | null; bytes: number }> {
  const { dataDir, file, force, print } = options;
  const dbDir = join(dataDir, DB_FOLDER);
  if (!existsSync(join(dbDir, 'PG_VERSION')))
    throw new BackupError(`No embedded database in ${dbDir}: nothing to back up (check DATA_DIR)`);
  if (existsSync(file) && !force)
    throw new BackupError(`${file} already exists; choose another name, or add --force to replace it`);
  const lock = lockDataDir(dataDir, 'backup');
  try {
    print(`Opening the embedded database in ${dbDir}…`);
    const pglite = await open(dbDir);
    let archive: Blob;
    let accounts: number | null;
    try {
      // Everything in the WAL written into the data files: the copy needs no recovery to open.
      await pglite.exec('CHECKPOINT');
      accounts = await countAccounts(pglite);
      print('Writing the backup…');
      archive = await pglite.dumpDataDir('gzip');
    } finally {
      await pglite.close();
    }
    const bytes = Buffer.from(await archive.arrayBuffer());
    writeAtomically(file, bytes);
    return { accounts, bytes: bytes.length };
  } finally {
    lock.release();
  }
}

export async function restoreEmbeddedDatabase(
  options: BackupOptions,
): Promise<{ accounts: number | null; previous: string | null }> {
  const { dataDir, file, force, print } = options;
  const dbDir = join(dataDir, DB_FOLDER);
  print(`Checking ${file}…`);
  const tar = readBackup(file);
  const lock = lockDataDir(dataDir, 'restore');
  try {
    const existing = existsSync(dbDir) ? readdirSync(dbDir) : null;
    if (existing !== null && existing.length > 0 && !force)
      throw new BackupError(
        `${dbDir} already holds a database; add --force to replace it (it is then kept as ${DB_FOLDER}.before-restore-<time>)`,
      );
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    // Unpacked and checked beside the live folder first: a backup that does not open changes nothing.
    const staging = join(dataDir, `${DB_FOLDER}.restoring-${stamp}`);
    print(`Unpacking the backup into ${staging}…`);
    let accounts: number | null;
    try {
      const pglite = await open(staging, new Blob([tar], { type: 'application/x-tar' }));
      try {
        accounts = await countAccounts(pglite);
      } finally {
        await pglite.close();
      }
      restrictModes(staging);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    let previous: string | null = null;
    if (existing !== null && existing.length > 0) {
      previous = join(dataDir, `${DB_FOLDER}.before-restore-${stamp}`);
      renameSync(dbDir, previous);
      print(`The previous database is kept in ${previous}`);
    } else if (existing !== null) {
      rmSync(dbDir, { recursive: true });
    }
    renameSync(staging, dbDir);
    return { accounts, previous };
  } finally {
    lock.release();
  }
}

async function open(dbDir: string, loadDataDir?: Blob): Promise<PGlite> {
  try {
    return await openPgliteFolder(dbDir, loadDataDir ? { loadDataDir } : {});
  } catch (error) {
    throw new BackupError(
      `The embedded database in ${dbDir} could not be opened (${(error as Error).message}); see docs/operations.md`,
    );
  }
}

/** Members in the database (null before the first migration created the table). */
async function countAccounts(pglite: PGlite): Promise<number | null> {
  const table = await pglite.query<{ exists: boolean }>(
    "select to_regclass('public.users') is not null as exists",
  );
  if (!table.rows[0]?.exists) return null;
  const result = await pglite.query<{ count: number }>('select count(*)::int as count from users');
  return result.rows[0]?.count ?? 0;
}

/** Written beside the target and renamed over it: never half a backup under the final name. */
function writeAtomically(file: string, bytes: Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  writeDurably(partial, bytes, false);
  try {
    renameSync(partial, file);
  } catch (error) {
    unlinkSync(partial);
    throw error;
  }
}

/** The backup's tar, after checking that it is one (gzip, tar, a PostgreSQL cluster inside). */
function readBackup(file: string): Buffer {
  let compressed: Buffer;
  try {
    compressed = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BackupError(
      code === 'ENOENT' ? `Backup file not found: ${file}` : `Cannot read ${file} (${code ?? String(error)})`,
    );
  }
  const notABackup = new BackupError(
    `${file} is not a Telerace database backup (expected the .tar.gz written by npm run backup)`,
  );
  let tar: Buffer;
  try {
    tar = gunzipSync(compressed);
  } catch {
    throw notABackup;
  }
  const names = tarEntryNames(tar);
  if (names === null || !names.has('PG_VERSION') || !names.has('global/pg_control')) throw notABackup;
  return tar;
}

/** Entry names of a ustar archive (leading '/' or './' removed), or null if it is not one. */
export function tarEntryNames(tar: Buffer): Set<string> | null {
  const BLOCK = 512;
  const names = new Set<string>();
  const text = (start: number, length: number) =>
    tar
      .subarray(start, start + length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return names;
    if (text(offset + 257, 5) !== 'ustar') return null;
    const size = Number.parseInt(text(offset + 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) return null;
    const prefix = text(offset + 345, 155);
    const name = (prefix ? `${prefix}/` : '') + text(offset, 100);
    names.add(name.replace(/^\.?\/+/, ''));
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return names.size > 0 ? names : null;
}
