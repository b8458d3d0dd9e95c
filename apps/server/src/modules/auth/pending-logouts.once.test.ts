/**
 * The held log-outs (pending-logouts.ts) shared through the real Redis: two stores on one
 * namespace stand for two instances, so a log-out held by one is written by the other before that
 * token renews anything, or by the other's retry; without an answering Redis each keeps its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../test/instances.js';
import { quietLogger } from '../../test/quiet-logger.js';
import { PendingLogouts } from './pending-logouts.js';

const connections: Redis[] = [];
afterAll(() => Promise.all(connections.map((redis) => redis.quit().catch(() => redis.disconnect()))));

/** As the instance's command connection: no offline queue, no retries. */
function connect(url = TEST_REDIS_URL): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  redis.on('error', () => {});
  connections.push(redis);
  return redis;
}

async function instances(): Promise<[PendingLogouts, PendingLogouts]> {
  const namespace = `telerace_test_${randomBytes(6).toString('hex')}`;
  const store = async () => {
    const redis = connect();
    await redis.connect();
    return new PendingLogouts({ redis, namespace, log: quietLogger() });
  };
  return [await store(), await store()];
}

/** What a database that is back does with a log-out: writes it (here: notes it). */
function recorder() {
  const written: string[] = [];
  return { written, record: async (hash: string) => void written.push(hash) };
}

const away = async () => {
  throw new Error('connect ECONNREFUSED');
};

describe('held log-outs', () => {
  it('one held on an instance is written by another before that token renews anything', async () => {
    const [a, b] = await instances();
    expect(await a.hold('token-a')).toBe(true);
    const database = recorder();
    await b.settle('another-token', database.record);
    expect(database.written).toEqual([]);
    await b.settle('token-a', database.record);
    expect(database.written).toEqual(['token-a']);
    // Written: no other instance writes it again (its holder may, once more: harmless).
    await b.settleAll(database.record);
    expect(database.written).toEqual(['token-a']);
  });

  it('stays held while the database is away, and the retry of any instance writes it', async () => {
    const [a, b] = await instances();
    await a.hold('token-a');
    await a.hold('token-b');
    await expect(b.settle('token-a', away)).rejects.toThrow('ECONNREFUSED');
    await expect(b.settleAll(away)).rejects.toThrow('ECONNREFUSED');
    const database = recorder();
    await b.settleAll(database.record);
    expect(database.written.sort()).toEqual(['token-a', 'token-b']);
    const again = recorder();
    await b.settleAll(again.record);
    expect(again.written).toEqual([]);
  });

  it('keeps its own in memory when Redis does not answer', async () => {
    const unreachable = connect('redis://127.0.0.1:1');
    const store = new PendingLogouts({ redis: unreachable, namespace: 'unused', log: quietLogger() });
    expect(await store.hold('token-a')).toBe(true);
    const database = recorder();
    await store.settle('token-a', database.record);
    expect(database.written).toEqual(['token-a']);
    expect(store.size).toBe(0);
  });
});
