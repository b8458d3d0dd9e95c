/**
 * Several Telerace instances as issue 15 runs them: one PostgreSQL database (created for the run),
 * one Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379) under a namespace of the run's own,
 * one JWT secret, each instance with its own data folder and port. Null (with the reason printed)
 * when PostgreSQL or Redis is not reachable.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { openDatabase } from './databases.js';
import { type Running, startTelerace } from './processes.js';
import { BENCH_SERVER_ENV } from './telerace-api.js';

export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Instances {
  servers: Running[];
  stop(): Promise<void>;
}

/** Whether the Redis at BENCH_REDIS_URL answers PING (the bench has no Redis client of its own). */
export function redisAnswers(url = BENCH_REDIS_URL, timeoutMs = 2_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    // A Redis that wants a password answers -NOAUTH: reachable all the same.
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
    socket.write('PING\r\n');
  });
}

/**
 * `envOf(index)`: settings of one instance only (e.g. its own inspector port), on top of the
 * shared ones. Instances start in index order; the first one up leads.
 */
export async function startInstances(
  count: number,
  extraEnv: Record<string, string> = {},
  envOf: (index: number) => Record<string, string> = () => ({}),
): Promise<Instances | null> {
  if (!(await redisAnswers())) {
    console.warn(`Redis at ${BENCH_REDIS_URL} unavailable: skipped`);
    return null;
  }
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
    for (let i = 0; i < count; i++) servers.push(await startTelerace({ ...env, ...envOf(i) }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, stop };
}
