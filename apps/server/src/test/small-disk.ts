/**
 * Test support: a small disk of the test's own (a tmpfs, mounted as root: CI runs as root) that a
 * test fills up and empties again, as a server's disk fills with logs, backups or video.
 */
import { execFile } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SmallDisk {
  readonly path: string;
  /** Writes a filler file until the disk has no byte left. */
  fill(): void;
  /** Removes the filler: the space returns. */
  free(): Promise<void>;
  /** Unmounts the disk and removes its mount point. */
  dispose(): Promise<void>;
}

export async function mountSmallDisk(sizeMb: number): Promise<SmallDisk> {
  if (process.getuid?.() !== 0)
    throw new Error('a small disk (tmpfs) is mounted as root only: run the tests as root');
  const path = await mkdtemp(join(tmpdir(), 'telerace-small-disk-'));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', path]);
  const filler = join(path, 'filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(1 << 16, 1);
      try {
        // Big chunks, then small ones: the last bytes too.
        for (;;) writeSync(fd, chunk);
      } catch {
        try {
          for (;;) writeSync(fd, chunk.subarray(0, 512));
        } catch {
          // Full.
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => rm(filler, { force: true }),
    async dispose() {
      await run('umount', ['-l', path]).catch(() => undefined);
      await rm(path, { recursive: true, force: true });
    },
  };
}
