import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DataDirInUseError,
  LOCK_FILE,
  type LockOwner,
  lockDataDir,
  processStartTicks,
} from './data-dir-lock.js';

const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

function owner(overrides: Partial<LockOwner>): LockOwner {
  return {
    pid: 1,
    startTicks: 1,
    hostname: hostname(),
    bootId,
    purpose: 'server',
    startedAt: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

describe('the DATA_DIR lock', () => {
  let folder: string;
  let dataDir: string;
  let sleeper: ChildProcess | undefined;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'telerace-lock-'));
    dataDir = join(folder, 'data');
  });
  afterEach(async () => {
    if (sleeper) {
      sleeper.kill('SIGKILL');
      await once(sleeper, 'exit');
      sleeper = undefined;
    }
    await rm(folder, { recursive: true, force: true });
  });

  const lockFile = () => join(dataDir, LOCK_FILE);
  const writeLock = (content: LockOwner | string) => {
    lockDataDir(dataDir, 'server').release(); // creates the folder
    writeFileSync(lockFile(), typeof content === 'string' ? content : JSON.stringify(content));
  };
  /** A process that has exited but is not collected: its parent (sleep) never waits for it. */
  const zombiePid = async (): Promise<number> => {
    sleeper = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [chunk] = (await once(sleeper.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    const pid = Number(chunk.toString().trim());
    await vi.waitFor(() => expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /), {
      timeout: 5_000,
    });
    return pid;
  };
  /** A live process that is not this one, with its real start time. */
  const liveProcess = async (): Promise<number> => {
    sleeper = spawn('sleep', ['30']);
    await once(sleeper, 'spawn');
    if (sleeper.pid === undefined) throw new Error('no pid');
    return sleeper.pid;
  };

  it('creates the folder and a lock naming this process, and removes it on release', () => {
    const lock = lockDataDir(dataDir, 'backup');
    const content = JSON.parse(readFileSync(lockFile(), 'utf8')) as LockOwner;
    expect(content).toMatchObject({
      pid: process.pid,
      startTicks: processStartTicks('self'),
      hostname: hostname(),
      bootId,
      purpose: 'backup',
    });
    expect(lock.takenOver).toBeNull();
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    lock.release();
  });

  it('refuses while a live process holds it, naming the folder and the pid, and leaves its file alone', async () => {
    const pid = await liveProcess();
    const held = owner({ pid, startTicks: processStartTicks(pid) });
    writeLock(held);
    const before = readFileSync(lockFile(), 'utf8');
    expect(() => lockDataDir(dataDir, 'server')).toThrowError(
      new DataDirInUseError(dataDir, held, lockFile()),
    );
    expect(() => lockDataDir(dataDir, 'server')).toThrow(
      `DATA_DIR ${dataDir} is in use by a running Telerace server (pid ${pid}, started 2024-05-01T10:00:00.000Z); stop it first`,
    );
    expect(readFileSync(lockFile(), 'utf8')).toBe(before);
  });

  it('refuses a second lock in the same process', () => {
    const lock = lockDataDir(dataDir, 'server');
    try {
      expect(() => lockDataDir(dataDir, 'restore')).toThrow(DataDirInUseError);
    } finally {
      lock.release();
    }
  });

  it.each([
    ['its process is gone', async () => owner({ pid: await finishedPid() })],
    [
      'its process is gone (its pid now belongs to another process)',
      async () => owner({ pid: await liveProcess(), startTicks: 12 }),
    ],
    ['the machine restarted since', async () => owner({ pid: await liveProcess(), bootId: 'another-boot' })],
    [
      'its process is gone (its pid is now this process)',
      async () => owner({ pid: process.pid, startTicks: 12 }),
    ],
    [
      'its process is gone',
      async () => {
        const pid = await zombiePid();
        return owner({ pid, startTicks: processStartTicks(pid) });
      },
    ],
  ])('takes over a stale lock: %s', async (reason, stale) => {
    const previous = await stale();
    writeLock(previous);
    const lock = lockDataDir(dataDir, 'server');
    try {
      expect(lock.takenOver).toEqual({ ...previous, reason });
      expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    } finally {
      lock.release();
    }
  });

  it('respects a lock from another host: it cannot tell whether that process runs', () => {
    writeLock(owner({ pid: 4242, hostname: 'other-host' }));
    expect(() => lockDataDir(dataDir, 'server')).toThrow(
      `DATA_DIR ${dataDir} is in use by a running Telerace server on host other-host (pid 4242); stop it first, or remove ${lockFile()} if that process is gone`,
    );
  });

  it('respects a lock file it cannot read, and says which file to remove', () => {
    writeLock('not json');
    expect(() => lockDataDir(dataDir, 'server')).toThrow(
      `DATA_DIR ${dataDir} is locked by ${lockFile()}, which cannot be read; if no Telerace server or backup uses this folder, remove that file`,
    );
  });

  it('names a running backup as such', async () => {
    const pid = await liveProcess();
    writeLock(owner({ pid, startTicks: processStartTicks(pid), purpose: 'backup' }));
    expect(() => lockDataDir(dataDir, 'server')).toThrow(/is in use by a running backup \(pid \d+,/);
  });

  it('release leaves a lock that is no longer its own', () => {
    const lock = lockDataDir(dataDir, 'server');
    const other = JSON.stringify(owner({ pid: 4242, hostname: 'other-host' }));
    writeFileSync(lockFile(), other);
    lock.release();
    expect(readFileSync(lockFile(), 'utf8')).toBe(other);
  });
});

async function finishedPid(): Promise<number> {
  const child = spawn('true');
  const pid = child.pid;
  await once(child, 'exit');
  if (pid === undefined) throw new Error('no pid');
  return pid;
}
