/**
 * Several Telerace instances as issue 15 runs them: one PostgreSQL database (created for the run),
 * one Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379) under a namespace of the run's own,
 * one JWT secret, each instance with its own data folder and port. Null (with the reason printed)
 * when PostgreSQL is not reachable.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from './databases.js';
import { type Running, startTelerace } from './processes.js';
import { BENCH_SERVER_ENV } from './telerace-api.js';

export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Instances {
  servers: Running[];
  stop(): Promise<void>;
}

export async function startInstances(
  count: number,
  extraEnv: Record<string, string> = {},
): Promise<Instances | null> {
  const database = await openDatabase('postgres');
  if (!database) return null;
  const env = {
    ...BENCH_SERVER_ENV,
    ...database.env,
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_NAMESPACE: `bench_${randomBytes(6).toString('hex')}`,
    // One secret for all: a token from one instance is valid on the others.
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ...extraEnv,
  };
  const servers: Running[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  };
  try {
    // One after the other: the first applies the migrations and seeds the admin.
    for (let i = 0; i < count; i++) servers.push(await startTelerace(env));
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, stop };
}
