/**
 * Test support for tests that run real processes: the server as `npm run dev` starts it (tsx,
 * `source` condition), free ports, and waiting for an HTTP status.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const SERVER_DIR = new URL('../..', import.meta.url);

export function startServer(
  env: Record<string, string>,
): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return Object.assign(child, { output: captureOutput(child) });
}

/** Keeps what a child process writes from now on; the function returns it so far. */
export function captureOutput(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return () => ({ stdout, stderr });
}

export { freeLoopbackPort as freePort } from '../free-port.js';

export async function waitForStatus(url: string, status: number, timeoutMs: number): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status === status) return response;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether a process exists (one that exited and was reaped no longer does). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the processes whose command line mentions `text` (Linux /proc). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
