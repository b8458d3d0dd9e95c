/** The real process: `node src/main.ts` as `npm run dev` starts it (tsx, `source` condition). */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCK_FILE } from './db/data-dir-lock.js';
import { createTestEnvironment, type TestEnvironment } from './test/app.js';
import {
  alive,
  exitCodeWithin,
  freePort,
  processesMentioning,
  startServer,
  waitForStatus,
} from './test/process.js';

describe('server process', () => {
  let environment: TestEnvironment | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await environment?.dispose();
  });

  it('refuses a wrong variable with one line on stderr and exit code 1', async () => {
    environment = await createTestEnvironment({ PORT: 'abc' });
    child = startServer(environment.env);
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    const { stdout, stderr } = (child as ReturnType<typeof startServer>).output();
    expect(stderr).toBe('Invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")\n');
    expect(stdout).toBe('');
  });

  it('refuses a comment pasted after a value in its environment, without echoing the secret', async () => {
    // What `JWT_SECRET=…  # note` in an EnvironmentFile= gives the process (deploy/telerace.env.example).
    const secret = `${'s'.repeat(40)}  # openssl rand -base64 48`;
    environment = await createTestEnvironment({ JWT_SECRET: secret });
    child = startServer(environment.env);
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    const { stderr } = (child as ReturnType<typeof startServer>).output();
    expect(stderr).toBe(
      `Invalid configuration: JWT_SECRET holds a comment ("#" after a blank), which an environment file keeps in the value: put comments on lines of their own (got a value of ${secret.length} characters)\n`,
    );
  });

  it('starts, becomes ready, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    environment = await createTestEnvironment({ PORT: String(port), LOG_LEVEL: 'warn' });
    child = startServer(environment.env);
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(`${base}/api/ready`, 200, 20_000);
    expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ status: 'ok' });

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect((child as ReturnType<typeof startServer>).output().stderr).toBe('');
  });

  it('takes its Janus and its simulated cars with it when it is killed outright', async () => {
    const port = await freePort();
    environment = await createTestEnvironment({
      PORT: String(port),
      LOG_LEVEL: 'info',
      VIDEO: 'auto',
      SIM_CARS: '1',
    });
    child = startServer(environment.env);
    await waitForStatus(`http://127.0.0.1:${port}/api/ready`, 200, 30_000);
    const output = () => (child as ReturnType<typeof startServer>).output().stdout;
    await vi.waitFor(() => expect(output()).toContain('janus started'), { timeout: 30_000, interval: 100 });
    const started = output()
      .split('\n')
      .find((line) => line.includes('janus started'));
    const janusPid = (JSON.parse(started ?? '{}') as { pid?: number }).pid;
    if (janusPid === undefined) throw new Error(`no Janus pid in ${started}`);
    // The simulated car's agent is given this server's address (arguments are NUL-separated).
    const agents = () => processesMentioning(`--server\0http://127.0.0.1:${port}`);
    await vi.waitFor(() => expect(agents()).not.toEqual([]), { timeout: 30_000, interval: 100 });
    expect(alive(janusPid)).toBe(true);

    child.kill('SIGKILL');
    await once(child, 'exit');
    await vi.waitFor(() => expect(alive(janusPid)).toBe(false), { timeout: 10_000, interval: 50 });
    await vi.waitFor(() => expect(agents()).toEqual([]), { timeout: 10_000, interval: 50 });
  }, 60_000);

  it('stops before any database write when its port is taken', async () => {
    // Empty: the server must leave it so (other tests start from a migrated copy).
    environment = await createTestEnvironment(
      {
        LOG_LEVEL: 'info',
        ADMIN_EMAIL: 'admin@example.test',
        ADMIN_PASSWORD: 'port taken admin password',
        SIM_CARS: '1',
      },
      { emptyDatabase: true },
    );
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      // On the postgres project the server uses its fresh PostgreSQL database, on pglite DATA_DIR/db.
      child = startServer({ ...environment.env, PORT: String(port) });
      const server = child as ReturnType<typeof startServer>;
      const code = await exitCodeWithin(server, 15_000);
      expect(code).toBe(1);
      expect(server.output().stdout).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
    const { DATABASE_URL: url } = environment.env;
    if (url === undefined) {
      expect(existsSync(join(environment.dataDir, 'db'))).toBe(false);
    } else {
      expect(await tablesIn(url)).toEqual([]);
    }
    expect(existsSync(join(environment.dataDir, 'sim-cars.json'))).toBe(false);
    expect(existsSync(join(environment.dataDir, LOCK_FILE))).toBe(false);
  }, 120_000);
});

async function tablesIn(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ name: string }>(
      "select table_schema || '.' || table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
    );
    return result.rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}
