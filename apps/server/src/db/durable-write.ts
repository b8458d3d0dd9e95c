/** Writing a file so that it is on disk before anything points at it (lock files, backups). */
import { closeSync, fsyncSync, openSync, writeFileSync } from 'node:fs';

/**
 * Creates `file` (mode 0600; `exclusive`: fails with EEXIST if it exists), writes `content` and
 * fsyncs it. Callers then link or rename it into place, so a reader never sees half of it.
 */
export function writeDurably(file: string, content: string | Buffer, exclusive: boolean): void {
  const fd = openSync(file, exclusive ? 'wx' : 'w', 0o600);
  try {
    // writeFileSync on a descriptor loops until every byte is written (writeSync may not).
    writeFileSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
