/**
 * Test support: a PostgreSQL cluster of the test's own, on a free loopback port, that the test may
 * kill as a crash or a failover does (SIGKILL to the postmaster) and start again on the same data.
 * The shared server of the postgres project (TEST_PG_ADMIN_URL) must never be killed: other files
 * use it at the same time.
 *
 * PostgreSQL refuses to run as root: as root (CI) the cluster belongs to the `postgres` user and
 * its commands run through `runuser`.
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { expect, vi } from 'vitest';
import { freeLoopbackPort } from '../free-port.js';

const run = promisify(execFile);

export interface OwnPostgres {
  /** The `postgres` database of the cluster, as the `postgres` superuser (trust on loopback). */
  readonly url: string;
  /** SIGKILLs the postmaster (its backends see it die and end): a crash, not a shutdown. */
  kill(): Promise<void>;
  /** Starts the cluster again on the same data and port, once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (immediately) and removes its folder. */
  dispose(): Promise<void>;
}

/** The newest installed server's binaries (Debian: /usr/lib/postgresql/<major>/bin). */
async function postgresBin(): Promise<string> {
  const majors = (await readdir('/usr/lib/postgresql')).map(Number).filter(Number.isFinite);
  if (majors.length === 0) throw new Error('no PostgreSQL server under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${Math.max(...majors)}/bin`;
}

/** The processes whose parent is `pid` (Linux: /proc/<pid>/stat's fourth field). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name (2nd field) is in parentheses and may hold spaces: read after its end.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = await postgresBin();
  const folder = await mkdtemp(join(tmpdir(), 'telerace-own-pg-'));
  const dataDir = join(folder, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    await chown(folder, uid, uid);
    await chmod(folder, 0o700);
  }
  const pgCommand = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args);

  const port = await freeLoopbackPort();
  // -N/--no-sync: a test cluster need not survive a power cut; fsync off for the same reason.
  await pgCommand('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-N']);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -F`;
  const start = async () => {
    // After a SIGKILL the old backends may still hold the shared memory for a moment.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await pgCommand('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(folder, 'log'), '-w', 'start']);
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    async kill() {
      const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      // The backends too, at once: left alone they notice the postmaster's death only a moment
      // later, and one of them could still answer a query a test makes "during the outage".
      const backends = await childrenOf(pid);
      process.kill(pid, 'SIGKILL');
      for (const backend of backends) {
        try {
          process.kill(backend, 'SIGKILL');
        } catch {
          // Ended already.
        }
      }
      // Gone once a connection is refused.
      await vi.waitFor(
        async () => {
          const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 500 });
          const connected = await client.connect().then(
            () => true,
            () => false,
          );
          if (connected) await client.end();
          expect(connected, 'PostgreSQL still accepts connections after SIGKILL').toBe(false);
        },
        { timeout: 10_000, interval: 20 },
      );
    },
    start,
    async dispose() {
      await pgCommand('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
