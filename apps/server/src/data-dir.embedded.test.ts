/**
 * Data safety of DATA_DIR with real server processes: one server per folder (a second one refuses
 * at once and touches nothing), a stale lock after a crash is taken over, a taken port stops the
 * start-up before any database write, and nothing under the folder is readable by other users.
 * The embedded database is forced (DATABASE_URL removed): these are PGlite's folder, so the file
 * runs on the pglite project only (`*.embedded.test.ts`); the taken-port case, which checks either
 * database, is in main.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from './db/data-dir-lock.js';
import { createTestEnvironment, type TestEnvironment } from './test/app.js';
import {
  embeddedDatabaseEnv,
  entriesOpenToOthers,
  membersWhoCannotLogIn,
  signUpMembers,
} from './test/data-dir.js';
import { exitCodeWithin, freePort, startServer, waitForStatus } from './test/process.js';

type Server = ReturnType<typeof startServer>;

describe('DATA_DIR safety (real server processes)', () => {
  let environment: TestEnvironment | undefined;
  const children: ChildProcess[] = [];
  const start = (env: Record<string, string>): Server => {
    const child = startServer(env);
    children.push(child);
    return child;
  };
  const stop = async (child: ChildProcess): Promise<number | null> => {
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    return code;
  };
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    await environment?.dispose();
    environment = undefined;
  });

  it('refuses a second server on the same folder at once, and every sign-up on the first survives a restart', async () => {
    environment = await createTestEnvironment({ LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
    const env = embeddedDatabaseEnv(environment.env);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = start({ ...env, PORT: String(port) });
    await waitForStatus(`${base}/api/ready`, 200, 30_000);
    const members = await signUpMembers(base, 3);
    const before = readdirSync(environment.dataDir).sort();

    const startedAt = Date.now();
    const second = start({
      ...env,
      PORT: String(await freePort()),
      ADMIN_EMAIL: 'second-admin@example.test',
      ADMIN_PASSWORD: 'second server admin password',
      SIM_CARS: '1',
    });
    const code = await exitCodeWithin(second, 20_000);
    const refusedAfterMs = Date.now() - startedAt;
    expect(code).toBe(1);
    const { stdout, stderr } = second.output();
    // One line, no stack, naming the folder and the process that holds it; nothing logged.
    expect(stderr).toBe(
      `DATA_DIR ${environment.dataDir} is in use by a running Telerace server (pid ${first.pid}, started ${lockOf(environment.dataDir).startedAt}); stop it first\n`,
    );
    expect(stdout).toBe('');
    // Before the server is even loaded (0.7 s here when idle; generous for a loaded CI machine).
    expect(refusedAfterMs).toBeLessThan(15_000);
    expect(readdirSync(environment.dataDir).sort()).toEqual(before);

    // The first keeps serving, and its writes are the only ones.
    members.push(...(await signUpMembers(base, 2)));
    expect(await stop(first)).toBe(0);
    expect(existsSync(join(environment.dataDir, LOCK_FILE))).toBe(false);

    const restarted = start({ ...env, PORT: String(port) });
    await waitForStatus(`${base}/api/ready`, 200, 30_000);
    expect(await membersWhoCannotLogIn(base, members)).toEqual([]);
    // The second server's admin was never seeded.
    expect(
      await membersWhoCannotLogIn(base, [
        { email: 'second-admin@example.test', password: 'second server admin password' },
      ]),
    ).toHaveLength(1);
    expect(await stop(restarted)).toBe(0);
  }, 180_000);

  it('takes over the lock of a server that died, with a log line naming it', async () => {
    environment = await createTestEnvironment({ LOG_LEVEL: 'warn' });
    const env = embeddedDatabaseEnv(environment.env);
    const deadPid = await pidOfAFinishedProcess();
    writeFileSync(
      join(environment.dataDir, LOCK_FILE),
      JSON.stringify({
        pid: deadPid,
        startTicks: 1,
        hostname: hostname(),
        bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        purpose: 'server',
        startedAt: '2020-01-01T00:00:00.000Z',
      }),
    );
    const port = await freePort();
    const server = start({ ...env, PORT: String(port) });
    await waitForStatus(`http://127.0.0.1:${port}/api/ready`, 200, 30_000);
    const takeover = logLines(server.output().stdout).filter((line) => String(line.msg).includes('stale'));
    expect(takeover).toHaveLength(1);
    expect(takeover[0]).toMatchObject({ level: 40, stalePid: deadPid, dataDir: environment.dataDir });
    expect(lockOf(environment.dataDir).pid).toBe(server.pid);
    expect(await stop(server)).toBe(0);
  }, 120_000);

  it('keeps everything under DATA_DIR private (0700/0600) whatever the umask, and fixes a loose folder with one warning', async () => {
    environment = await createTestEnvironment({ LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
    const dataDir = join(environment.dataDir, 'state'); // created by the server itself
    const env: Record<string, string> = { ...embeddedDatabaseEnv(environment.env), DATA_DIR: dataDir };
    delete env.JWT_SECRET; // the generated secret is written there too
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const previousUmask = process.umask(0o022);
    let server: Server;
    try {
      server = start({ ...env, PORT: String(port) });
    } finally {
      process.umask(previousUmask);
    }
    await waitForStatus(`${base}/api/ready`, 200, 30_000);
    const members = await signUpMembers(base, 2);
    expect(entriesOpenToOthers(dataDir)).toEqual([]);
    const aboutModes = (stdout: string) =>
      logLines(stdout).filter((line) => String(line.msg).includes('permissions'));
    // A fresh folder is private from the start: nothing to warn about.
    expect(aboutModes(server.output().stdout)).toEqual([]);
    expect(await stop(server)).toBe(0);

    // An older install (or a copy) left the folder world-readable.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'jwt-secret'), 0o644);
    chmodSync(join(dataDir, 'db'), 0o755);
    chmodSync(join(dataDir, 'db', 'PG_VERSION'), 0o644);
    mkdirSync(join(dataDir, 'db', 'extra'), { mode: 0o755 });
    chmodSync(join(dataDir, 'db', 'extra'), 0o755);
    const loose = entriesOpenToOthers(dataDir).length;
    expect(loose).toBe(5);
    const again = start({ ...env, PORT: String(port) });
    await waitForStatus(`${base}/api/ready`, 200, 30_000);
    expect(entriesOpenToOthers(dataDir)).toEqual([]);
    const warnings = aboutModes(again.output().stdout);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, dataDir, changed: loose });
    expect(String(warnings[0]?.msg)).toContain(
      'removed group and other permissions from 5 files and folders',
    );
    expect(await membersWhoCannotLogIn(base, members)).toEqual([]);
    expect(await stop(again)).toBe(0);
  }, 180_000);
});

function lockOf(dataDir: string): { pid: number; startedAt: string } {
  return JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number; startedAt: string };
}

function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function pidOfAFinishedProcess(): Promise<number> {
  const child = spawn('true');
  const pid = child.pid;
  await once(child, 'exit');
  if (pid === undefined) throw new Error('no pid');
  return pid;
}
