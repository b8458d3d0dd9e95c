/**
 * DATA_DIR holds password hashes (in the database files), the JWT secret and the cars' secrets:
 * nothing in it is for other local users. The process runs with umask 077 (main.ts), so what it
 * creates is 0700/0600; this module takes the group and other bits off what already exists —
 * a folder from an older version or copied with loose modes, and the files PGlite unpacks with
 * the modes stored in its archive (0666) when it creates or restores a cluster.
 */
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const GROUP_AND_OTHER = 0o077;

export interface ModeChange {
  /** Relative to the folder walked ('.' for the folder itself). */
  path: string;
  from: number;
  to: number;
}

export interface ModeRepair {
  changed: ModeChange[];
  /** Entries whose mode could not be changed (owned by another user). */
  failed: string[];
}

/**
 * Removes group/other permissions from `folder` and everything under it. Symbolic links are left
 * alone (their own mode means nothing; their targets may be outside). A missing folder is fine.
 */
export function restrictModes(folder: string): ModeRepair {
  const repair: ModeRepair = { changed: [], failed: [] };
  const visit = (path: string): void => {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch (error) {
      // Removed meanwhile (a running PGlite deletes its temporary files).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stats.isSymbolicLink()) return;
    const mode = stats.mode & 0o7777;
    if ((mode & GROUP_AND_OTHER) !== 0) {
      const to = mode & ~GROUP_AND_OTHER;
      const name = relative(folder, path) || '.';
      try {
        chmodSync(path, to);
        repair.changed.push({ path: name, from: mode, to });
      } catch {
        repair.failed.push(name);
      }
    }
    if (!stats.isDirectory()) return;
    let entries: string[];
    try {
      entries = readdirSync(path);
    } catch {
      repair.failed.push(relative(folder, path) || '.');
      return;
    }
    for (const entry of entries) visit(join(path, entry));
  };
  visit(folder);
  return repair;
}

/** One line for the start-up warning: how many, and a few examples with their modes. */
export function describeRepair(repair: ModeRepair): string {
  const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
  const examples = repair.changed
    .slice(0, 3)
    .map((change) => `${change.path} ${octal(change.from)}→${octal(change.to)}`)
    .join(', ');
  const more = repair.changed.length > 3 ? ', …' : '';
  const failed =
    repair.failed.length > 0
      ? `; could not change ${repair.failed.length} (owned by another user?): ${repair.failed.slice(0, 3).join(', ')}`
      : '';
  return `removed group and other permissions from ${repair.changed.length} files and folders (${examples}${more})${failed}`;
}
