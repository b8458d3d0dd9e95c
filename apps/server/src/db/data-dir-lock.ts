/**
 * The exclusive lock on DATA_DIR, like PostgreSQL's `postmaster.pid`: the embedded database
 * (PGlite) belongs to one process, and two servers writing the same files lose data silently or
 * leave a folder that no longer opens. The lock is a file created atomically (written aside, then
 * hard-linked into place, so it never exists half-written) naming its owner: pid, the process's
 * start time in the kernel's clock ticks, the machine and its boot.
 *
 * A lock left by a process that died without releasing it (SIGKILL, power cut) is stale and taken
 * over: its pid is gone, or the pid now belongs to another process (its start time differs: pid
 * reuse, e.g. pid 1 again in a restarted container), or the machine booted since. A lock from
 * another host (a shared file system) cannot be checked and is always respected.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeDurably } from './durable-write.js';

export const LOCK_FILE = 'telerace.lock';

/** What holds the folder: the server, or one of the maintenance commands. */
export type LockPurpose = 'server' | 'backup' | 'restore';

export interface LockOwner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where /proc is missing. */
  startTicks: number | null;
  hostname: string;
  /** /proc/sys/kernel/random/boot_id; null where it is missing. */
  bootId: string | null;
  purpose: LockPurpose;
  /** ISO time, for people reading the file. */
  startedAt: string;
}

export interface DataDirLock {
  readonly file: string;
  /** The stale lock that was replaced, if any (the caller logs it). */
  readonly takenOver: (LockOwner & { reason: string }) | null;
  /** Removes the lock if it is still ours. Synchronous so it can run in an 'exit' handler. Idempotent. */
  release(): void;
}

/** Another live process holds the folder. The message is one line for an operator. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner | null,
    readonly lockFile: string,
  ) {
    super(inUseMessage(dataDir, owner, lockFile));
  }
}

function inUseMessage(dataDir: string, owner: LockOwner | null, lockFile: string): string {
  if (owner === null)
    return `DATA_DIR ${dataDir} is locked by ${lockFile}, which cannot be read; if no Telerace server or backup uses this folder, remove that file`;
  const what = owner.purpose === 'server' ? 'a running Telerace server' : `a running ${owner.purpose}`;
  if (owner.hostname !== hostname())
    return `DATA_DIR ${dataDir} is in use by ${what} on host ${owner.hostname} (pid ${owner.pid}); stop it first, or remove ${lockFile} if that process is gone`;
  return `DATA_DIR ${dataDir} is in use by ${what} (pid ${owner.pid}, started ${owner.startedAt}); stop it first`;
}

/**
 * Takes the lock or throws DataDirInUseError. Creates DATA_DIR (mode from the umask) if missing.
 * Never deletes a lock whose owner may be alive.
 */
export function lockDataDir(dataDir: string, purpose: LockPurpose): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const self = currentOwner(purpose);
  // Our own pid in the file would look stale (see staleReason): refuse a second lock here first.
  if (heldHere.has(file)) throw new DataDirInUseError(dataDir, self, file);
  const content = `${JSON.stringify(self, null, 2)}\n`;
  let takenOver: DataDirLock['takenOver'] = null;
  // A few rounds: a stale lock removed here may be taken by another starting process meanwhile.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (createExclusively(file, content)) return heldLock(file, content, takenOver);
    const existing = readLock(file);
    if (existing === undefined) continue; // Released meanwhile: try again.
    const owner = parseOwner(existing);
    const reason = owner === null ? null : staleReason(owner);
    if (owner === null || reason === null) throw new DataDirInUseError(dataDir, owner, file);
    if (removeIfUnchanged(file, existing)) takenOver = { ...owner, reason };
  }
  throw new DataDirInUseError(dataDir, parseOwner(readLock(file) ?? ''), file);
}

/** Lock files this process holds. */
const heldHere = new Set<string>();

function heldLock(file: string, content: string, takenOver: DataDirLock['takenOver']): DataDirLock {
  heldHere.add(file);
  let released = false;
  return {
    file,
    takenOver,
    release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      // Someone may have removed our file by hand and another process locked the folder since.
      if (readLock(file) === content) unlinkSync(file);
    },
  };
}

/** Written aside and fsynced, then linked: the lock file appears whole or not at all. */
function createExclusively(file: string, content: string): boolean {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeDurably(aside, content, true);
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(aside);
  }
}

function readLock(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Compare-and-delete: the stale file is renamed away (atomic), then checked to be the one judged
 * stale. If another process replaced it in between, its fresh lock is put back.
 */
function removeIfUnchanged(file: string, expected: string): boolean {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (readFileSync(aside, 'utf8') === expected) {
    unlinkSync(aside);
    return true;
  }
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  unlinkSync(aside);
  return false;
}

function parseOwner(content: string): LockOwner | null {
  try {
    const value = JSON.parse(content) as Partial<LockOwner>;
    if (!Number.isInteger(value.pid) || typeof value.hostname !== 'string') return null;
    return {
      pid: value.pid as number,
      startTicks: typeof value.startTicks === 'number' ? value.startTicks : null,
      hostname: value.hostname,
      bootId: typeof value.bootId === 'string' ? value.bootId : null,
      purpose: value.purpose === 'backup' || value.purpose === 'restore' ? value.purpose : 'server',
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : 'at an unknown time',
    };
  } catch {
    return null;
  }
}

/** Why the owner no longer holds the lock, or null when it may still be running. */
export function staleReason(owner: LockOwner): string | null {
  if (owner.hostname !== hostname()) return null;
  const bootId = readBootId();
  if (owner.bootId !== null && bootId !== null && owner.bootId !== bootId)
    return 'the machine restarted since';
  // No other live process can have our pid: the owner is gone and its pid was given to us.
  if (owner.pid === process.pid) return 'its process is gone (its pid is now this process)';
  // A zombie has exited and writes nothing more; only its parent has not collected it yet.
  if (!processExists(owner.pid) || procStat(owner.pid)?.state === 'Z') return 'its process is gone';
  const startTicks = processStartTicks(owner.pid);
  if (owner.startTicks !== null && startTicks !== null && owner.startTicks !== startTicks)
    return 'its process is gone (its pid now belongs to another process)';
  return null;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of a process in clock ticks after boot (Linux), or null. */
export function processStartTicks(pid: number | 'self'): number | null {
  return procStat(pid)?.startTicks ?? null;
}

/** State (R, S, Z…) and start time from /proc/<pid>/stat; null where it cannot be read. */
function procStat(pid: number | 'self'): { state: string; startTicks: number | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return { state: fields[0] ?? '', startTicks: Number.isSafeInteger(ticks) ? ticks : null };
  } catch {
    return null;
  }
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

function currentOwner(purpose: LockPurpose): LockOwner {
  return {
    pid: process.pid,
    startTicks: processStartTicks('self'),
    hostname: hostname(),
    bootId: readBootId(),
    purpose,
    startedAt: new Date().toISOString(),
  };
}
