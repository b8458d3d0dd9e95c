/**
 * Test support for scale-out (issue 15): two real server processes, A and B, on one PostgreSQL
 * database and one Redis, each with its own DATA_DIR and port — what two instances behind the
 * example proxy are. Each harness gets its own REDIS_NAMESPACE, so test files running at once on
 * the shared Redis never hear each other's facts. Needs the postgres project (DATABASE_URL);
 * Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379, started by .ci/run). Disposing fails
 * when a process sent two queries at once on one connection (concurrent-query.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEnvironment, type TestEnvironment } from './app.js';
import { CONCURRENT_QUERY_WARNING } from './concurrent-query.js';
import { apiCall, freePort, killProcess, logIn, startServer, waitForStatus } from './process.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type InstanceName = 'A' | 'B';

/** One running server process of the pair. */
export interface Instance {
  name: InstanceName;
  server: ReturnType<typeof startServer>;
  port: number;
  base: string;
  /** The environment it was started with (DATA_DIR, PORT, REDIS_URL, …). */
  env: Record<string, string>;
}

export interface TwoInstances {
  a: Instance;
  b: Instance;
  /** The first admin (seeded by both; the same account on the shared database). */
  admin: { email: string; password: string };
  /** The admin's access token (either instance accepts it: one JWT_SECRET). */
  adminToken: string;
  /** This harness's REDIS_NAMESPACE. */
  namespace: string;
  environment: TestEnvironment;
  /** SIGKILLs the instance (a crash: no clean close, its Redis and PostgreSQL connections just drop). */
  kill(name: InstanceName): Promise<void>;
  /**
   * SIGTERMs the instance, as `systemctl stop` or `restart` does (an upgrade): it closes cleanly.
   * Resolves with its exit code once it is gone.
   */
  stop(name: InstanceName): Promise<number | null>;
  /** Starts the instance again (after `kill` or `stop`), on its DATA_DIR and a new port; resolves once ready. */
  restart(name: InstanceName, env?: Record<string, string>): Promise<Instance>;
  dispose(): Promise<void>;
}

export interface TwoInstancesOptions {
  /** Environment for both processes (on top of the test environment's). */
  env?: Record<string, string>;
  /** Environment for one of them only (e.g. `{ B: { REDIS_URL: 'redis://127.0.0.1:1' } }`). */
  envOf?: Partial<Record<InstanceName, Record<string, string>>>;
}

const ADMIN = { email: 'scale-out-admin@example.com', password: 'scale-out-admin-password' };

/** A and B on a fresh database and namespace, both ready, the admin logged in on A. */
export async function startTwoInstances(options: TwoInstancesOptions = {}): Promise<TwoInstances> {
  const environment = await createTestEnvironment();
  if (!environment.env.DATABASE_URL) {
    await environment.dispose();
    throw new Error('two instances share one PostgreSQL: run on the postgres project (TEST_DB=postgres)');
  }
  const namespace = `telerace_test_${randomBytes(6).toString('hex')}`;
  const dataDirs: Record<InstanceName, string> = {
    A: environment.dataDir,
    B: await mkdtemp(join(tmpdir(), 'telerace-test-b-')),
  };
  const running: Partial<Record<InstanceName, Instance>> = {};
  const started: Instance[] = [];

  const start = async (name: InstanceName, extra: Record<string, string> = {}): Promise<Instance> => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      ...environment.env,
      DATA_DIR: dataDirs[name],
      PORT: String(port),
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_NAMESPACE: namespace,
      ...options.env,
      ...options.envOf?.[name],
      ...extra,
    };
    const server = startServer(env);
    const instance: Instance = { name, server, port, base, env };
    running[name] = instance;
    started.push(instance);
    try {
      await waitForStatus(`${base}/api/ready`, 200, 60_000);
    } catch (error) {
      await killProcess(server);
      throw new Error(
        `instance ${name} did not start: ${(error as Error).message}\n${server.output().stderr}`,
      );
    }
    return instance;
  };

  const stopAll = async () => {
    await Promise.all(Object.values(running).map((instance) => killProcess(instance.server as ChildProcess)));
  };
  const dispose = async () => {
    await stopAll();
    await rm(dataDirs.B, { recursive: true, force: true });
    await environment.dispose();
    // Every process either name ran, a killed and restarted one too.
    for (const instance of started)
      if (instance.server.output().stderr.includes(CONCURRENT_QUERY_WARNING))
        throw new Error(`instance ${instance.name} sent two queries at once on one PostgreSQL connection`);
  };

  try {
    // One after the other: A applies the migrations and seeds the admin, B finds them done.
    const a = await start('A');
    const b = await start('B');
    const adminToken = await logIn(a.base, ADMIN);
    const pair: TwoInstances = {
      a,
      b,
      admin: ADMIN,
      adminToken,
      namespace,
      environment,
      async kill(name) {
        const instance = running[name];
        if (instance) await killProcess(instance.server);
      },
      async stop(name) {
        const server = running[name]?.server;
        if (!server) return null;
        if (server.exitCode === null && server.signalCode === null) {
          const exited = once(server, 'exit');
          server.kill('SIGTERM');
          await exited;
        }
        return server.exitCode;
      },
      async restart(name, env) {
        const instance = await start(name, env);
        if (name === 'A') pair.a = instance;
        else pair.b = instance;
        return instance;
      },
      dispose,
    };
    return pair;
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** A member signed up and logged in on `instance`: their id, access token and password. */
export async function signUpMember(
  instance: Instance,
  name: string,
): Promise<{ id: number; token: string; password: string }> {
  const credentials = { email: `${name}@example.com`, password: `${name}-Passw0rd!-long` };
  await apiCall(instance.base, 'POST', '/signup', { ...credentials, username: name, recaptchaToken: '' });
  const token = await logIn(instance.base, credentials);
  const { user } = await apiCall<{ user: { id: number } }>(instance.base, 'GET', '/me', undefined, token);
  return { id: user.id, token, password: credentials.password };
}
