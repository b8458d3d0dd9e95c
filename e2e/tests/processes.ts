/**
 * The processes behind an e2e server, found in /proc (the tests run on the same machine): for the
 * fault tests that kill one of them as a crash would.
 */
import { readdirSync, readFileSync } from 'node:fs';

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // gone meanwhile
  }
}

/** `comm` and the parent pid of a process, from /proc/<pid>/stat ("pid (comm) state ppid …"). */
function stat(pid: string): { comm: string; ppid: number } | null {
  const text = read(`/proc/${pid}/stat`);
  const match = text?.match(/^\d+ \((.*)\) \S+ (\d+)/);
  return match ? { comm: match[1] as string, ppid: Number(match[2]) } : null;
}

/**
 * Pids of the Janus processes supervised by the server listening on `url`'s port: children named
 * `janus` of the process whose environment has that PORT.
 */
export function janusPidsOf(url: string): number[] {
  const port = `PORT=${new URL(url).port}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      const process = stat(pid);
      if (process?.comm !== 'janus') return [];
      const parentEnv = read(`/proc/${process.ppid}/environ`)?.split('\0') ?? [];
      return parentEnv.includes(port) ? [Number(pid)] : [];
    });
}
