/**
 * Cars' telemetry shared through Redis (issue 15), against the real Redis: at most one write per
 * car a second, read back in one call, and nothing waits or throws while Redis is down. Each test
 * has a namespace of its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fresher, type TelemetryAt } from '../modules/cars/cars.presenter.js';
import { TEST_REDIS_URL } from '../test/instances.js';
import { quietLogger } from '../test/quiet-logger.js';
import { KEPT_FOR_MS, RECORD_EVERY_MS, SharedTelemetry } from './shared-telemetry.js';

const connections: Redis[] = [];

async function connected(): Promise<Redis> {
  const connection = connect();
  if (connection.status !== 'ready') await new Promise((resolve) => connection.once('ready', resolve));
  return connection;
}

function connect(url = TEST_REDIS_URL): Redis {
  // As the instance's command connection: no offline queue, no retries (fails at once when down).
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  connections.push(redis);
  return redis;
}

const newNamespace = () => `telerace_test_${randomBytes(6).toString('hex')}`;
const at = (ms: number) => new Date(ms).toISOString();

let redis: Redis;
beforeAll(async () => {
  redis = await connected();
});
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

/** Two instances' copies on one namespace, this one's clock in `clock.now`. */
async function pair() {
  const namespace = newNamespace();
  const clock = { now: 1_000_000 };
  const here = new SharedTelemetry({ redis, namespace, log: quietLogger(), now: () => clock.now });
  const elsewhere = new SharedTelemetry({ redis: await connected(), namespace, log: quietLogger() });
  // Commands on one connection answer in order: after a PING, every write before it is done.
  const written = () => redis.ping();
  return { namespace, clock, here, elsewhere, written };
}

describe('SharedTelemetry', () => {
  it('another instance reads what the car’s instance recorded, all cars in one call', async () => {
    const { here, elsewhere, written } = await pair();
    here.record(1, { speed: 1.5, battery: 80, at: at(1_000_000) });
    here.record(2, { battery: 40, at: at(1_000_100) });
    await written();
    const read = await elsewhere.lastOf([1, 2, 3]);
    expect([...read]).toEqual([
      [1, { speed: 1.5, battery: 80, at: at(1_000_000) }],
      [2, { battery: 40, at: at(1_000_100) }],
    ]);
    expect(await elsewhere.lastOf([])).toEqual(new Map());
  });

  it(`writes a car at most once per ${RECORD_EVERY_MS} ms, each car on its own`, async () => {
    const { clock, here, elsewhere, written } = await pair();
    here.record(1, { speed: 1, at: at(clock.now) });
    clock.now += RECORD_EVERY_MS - 1;
    here.record(1, { speed: 2, at: at(clock.now) });
    here.record(2, { speed: 3, at: at(clock.now) });
    await written();
    expect((await elsewhere.lastOf([1])).get(1)?.speed).toBe(1);
    expect((await elsewhere.lastOf([2])).get(2)?.speed).toBe(3);
    clock.now += 1;
    here.record(1, { speed: 4, at: at(clock.now) });
    await written();
    expect((await elsewhere.lastOf([1])).get(1)?.speed).toBe(4);
  });

  it('keeps a car’s record for a day after its last write, then it fades', async () => {
    const { namespace, here, written } = await pair();
    here.record(7, { speed: 0, at: at(1_000_000) });
    await written();
    const ttl = await redis.pttl(`${namespace}:telemetry:7`);
    expect(ttl).toBeGreaterThan(KEPT_FOR_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(KEPT_FOR_MS);
  });

  it('ignores a stored value it cannot read (another version, or garbage)', async () => {
    const { namespace, elsewhere } = await pair();
    await redis.set(`${namespace}:telemetry:1`, 'not json');
    await redis.set(`${namespace}:telemetry:2`, JSON.stringify({ speed: 1 }));
    await redis.set(`${namespace}:telemetry:3`, JSON.stringify({ speed: 1, at: at(5) }));
    expect([...(await elsewhere.lastOf([1, 2, 3])).keys()]).toEqual([3]);
  });

  it('while Redis is down: recording does nothing and throws nothing, reading finds nothing', async () => {
    const down = connect('redis://127.0.0.1:1');
    const shared = new SharedTelemetry({ redis: down, namespace: newNamespace(), log: quietLogger() });
    expect(() => shared.record(1, { speed: 1, at: at(1) })).not.toThrow();
    expect(await shared.lastOf([1])).toEqual(new Map());
  });
});

describe('fresher', () => {
  const older: TelemetryAt = { speed: 1, at: '2026-01-01T10:00:00.000Z' };
  const newer: TelemetryAt = { speed: 2, at: '2026-01-01T10:00:01.000Z' };
  it.each([
    ['nothing anywhere', null, undefined, null],
    ['only here', older, undefined, older],
    ['only elsewhere', null, newer, newer],
    ['here is fresher', newer, older, newer],
    ['elsewhere is fresher', older, newer, newer],
    ['the same time: here', older, { ...older, speed: 9 }, older],
  ])('%s', (_, here, elsewhere, expected) => {
    expect(fresher(here, elsewhere)).toEqual(expected);
  });
});
