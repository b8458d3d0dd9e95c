/**
 * The Redis stores of the abuse limits (issue 15), against the real Redis: two stores on one
 * namespace stand for two instances. Each test has a namespace of its own, so test files running
 * at once never count each other's events.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LimitWindow } from '../limit-window.js';
import { DEFAULT_LOGIN_LIMITS, LoginThrottle } from '../modules/auth/login-limiter.js';
import { TEST_REDIS_URL } from '../test/instances.js';
import { quietLogger } from '../test/quiet-logger.js';
import { redisLimiter } from './limit-stores.js';
import { RedisSocketPlaces } from './redis-socket-places.js';
import { SharedCounters } from './shared-counters.js';

const MINUTE = 60_000;
const connections: Redis[] = [];

function connect(url = TEST_REDIS_URL): Redis {
  // As the instance's command connection: no offline queue, no retries (fails at once when down).
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  connections.push(redis);
  return redis;
}

/** A logger that keeps its warnings. */
function recordingLogger() {
  const warnings: string[] = [];
  const logger: FastifyBaseLogger = Object.assign(Object.create(quietLogger()), {
    warn: (_: unknown, message: string) => warnings.push(message),
    child: () => logger,
  });
  return { logger, warnings };
}

const newNamespace = () => `telerace_test_${randomBytes(6).toString('hex')}`;

let redis: Redis;
beforeAll(async () => {
  redis = connect();
  await new Promise((resolve) => redis.once('ready', resolve));
});
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

/** Two instances' counters on one namespace. */
function twoInstances(namespace = newNamespace()) {
  return [0, 1].map(() => new SharedCounters({ redis, namespace, log: quietLogger() })) as [
    SharedCounters,
    SharedCounters,
  ];
}

/** A counted limit on one instance's counters. */
const windowOn = <K extends string | number>(
  counters: SharedCounters,
  name: string,
  limit: number,
  windowMs: number,
) => new LimitWindow<K>(redisLimiter(counters, name, limit, windowMs));

/** The throttle of one instance. */
const throttleOn = (counters: SharedCounters) =>
  new LoginThrottle({ store: (name, points, windowMs) => redisLimiter(counters, name, points, windowMs) });

describe('counted limits in Redis', () => {
  it('counts events recorded on either instance; the wait is until the window of the first ends', async () => {
    const [a, b] = twoInstances();
    const onA = windowOn<number>(a, 'codes', 3, 60 * MINUTE);
    const onB = windowOn<number>(b, 'codes', 3, 60 * MINUTE);
    await onA.record(7);
    await onB.record(7);
    expect(await onA.retryAfterMs(7)).toBe(0);
    await onA.record(7);
    const wait = await onB.retryAfterMs(7);
    expect(wait).toBeGreaterThan(59 * MINUTE);
    expect(wait).toBeLessThanOrEqual(60 * MINUTE);
    expect(await onB.retryAfterMs(8)).toBe(0);
    // Taking one back frees the place on both.
    await onB.unrecord(7);
    expect(await onA.retryAfterMs(7)).toBe(0);
  });

  it('a key expires a window after its first event, whatever comes after', async () => {
    const [a] = twoInstances();
    const window = windowOn<string>(a, 'spray', 5, MINUTE);
    for (let i = 0; i < 20; i += 1) await window.record('1.2.3.4');
    const key = `${a.prefix('spray')}:1.2.3.4`;
    expect(Number(await redis.get(key))).toBe(20);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(MINUTE - 5_000);
    expect(ttl).toBeLessThanOrEqual(MINUTE);
  });

  it('counts events recorded at the same moment on two instances (atomic)', async () => {
    const [a, b] = twoInstances();
    const windows = [a, b].map((counters) => windowOn<number>(counters, 'burst', 100, MINUTE));
    await Promise.all(Array.from({ length: 40 }, (_, i) => windows[i % 2]?.record(1)));
    expect(Number(await redis.get(`${a.prefix('burst')}:1`))).toBe(40);
  });

  it('counts in memory on a Redis that is down, warning once', async () => {
    const { logger, warnings } = recordingLogger();
    const down = new SharedCounters({
      redis: connect('redis://127.0.0.1:1'),
      namespace: newNamespace(),
      log: logger,
    });
    const window = windowOn<number>(down, 'codes', 2, MINUTE);
    expect(await window.retryAfterMs(1)).toBe(0);
    await window.record(1);
    await window.record(1);
    expect(await window.retryAfterMs(1)).toBeGreaterThan(0);
    expect(await window.retryAfterMs(2)).toBe(0);
    expect(warnings).toHaveLength(1);
  });

  it('take: one budget for both instances, taken at once from both without passing it', async () => {
    const [a, b] = twoInstances();
    const windows = [a, b].map((counters) => windowOn<number>(counters, 'commands', 20, 2_000));
    const taken = await Promise.all(Array.from({ length: 50 }, (_, i) => windows[i % 2]?.take(5)));
    expect(taken.filter(Boolean)).toHaveLength(20);
    const key = `${a.prefix('commands')}:5`;
    const counted = await redis.get(key);
    // Refused on each instance from then on without asking Redis.
    expect(await windows[0]?.take(5)).toBe(false);
    expect(await windows[1]?.take(5)).toBe(false);
    expect(await redis.get(key)).toBe(counted);
    expect(await windows[1]?.take(6)).toBe(true);
  });

  it('take on a Redis that is down: this instance’s own count decides alone', async () => {
    const down = new SharedCounters({
      redis: connect('redis://127.0.0.1:1'),
      namespace: newNamespace(),
      log: quietLogger(),
    });
    const window = windowOn<number>(down, 'commands', 2, MINUTE);
    expect([await window.take(1), await window.take(1), await window.take(1)]).toEqual([true, true, false]);
  });
});

describe('the login throttle in Redis', () => {
  it('failures on one instance slow the next attempt on the other; a success there clears the pair', async () => {
    const [a, b] = twoInstances();
    const onA = throttleOn(a);
    const onB = throttleOn(b);
    for (let i = 0; i < DEFAULT_LOGIN_LIMITS.freeFailuresPerPair; i += 1) {
      await onA.recordFailure('Owner@Example.com', '9.9.9.9');
    }
    // The e-mail's case does not matter; the delay begins after the free failures.
    const first = await onB.retryAfterMs('owner@example.com', '9.9.9.9');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(DEFAULT_LOGIN_LIMITS.firstDelayMs);
    // Someone else's address is not slowed.
    expect(await onB.retryAfterMs('owner@example.com', '8.8.8.8')).toBe(0);
    await onB.recordFailure('owner@example.com', '9.9.9.9');
    const second = await onA.retryAfterMs('owner@example.com', '9.9.9.9');
    expect(second).toBeGreaterThan(DEFAULT_LOGIN_LIMITS.firstDelayMs);
    expect(second).toBeLessThanOrEqual(2 * DEFAULT_LOGIN_LIMITS.firstDelayMs);
    await onB.recordSuccess('owner@example.com', '9.9.9.9');
    expect(await onA.retryAfterMs('owner@example.com', '9.9.9.9')).toBe(0);
  });

  it('a password reset on one instance forgets the account’s pairs on every instance', async () => {
    const [a, b] = twoInstances();
    const onA = throttleOn(a);
    const onB = throttleOn(b);
    for (let i = 0; i < 8; i += 1) await onA.recordFailure('x@example.com', '7.7.7.7');
    expect(await onB.retryAfterMs('x@example.com', '7.7.7.7')).toBeGreaterThan(0);
    await onB.clearAccount('x@example.com');
    expect(await onA.retryAfterMs('x@example.com', '7.7.7.7')).toBe(0);
  });

  it('blocks an address that failed perIp times across accounts and instances', async () => {
    const [a, b] = twoInstances();
    const throttles = [throttleOn(a), throttleOn(b)];
    for (let i = 0; i < DEFAULT_LOGIN_LIMITS.perIp; i += 1) {
      await throttles[i % 2]?.recordFailure(`member${i}@example.com`, '6.6.6.6');
    }
    const fresh = throttleOn(a);
    const wait = await fresh.retryAfterMs('never-tried@example.com', '6.6.6.6');
    expect(wait).toBeGreaterThan(DEFAULT_LOGIN_LIMITS.windowMs - 10_000);
    expect(wait).toBeLessThanOrEqual(DEFAULT_LOGIN_LIMITS.windowMs);
    expect(await fresh.retryAfterMs('never-tried@example.com', '6.6.6.7')).toBe(0);
  });
});

describe('RedisSocketPlaces', () => {
  /** An instance: its own in-memory counts beside the shared places. */
  function instance(counters: SharedCounters, timing?: { leaseMs: number; refreshMs: number }) {
    const held = new Map<string, number>();
    const places = new RedisSocketPlaces({
      counters,
      instanceId: randomBytes(4).toString('hex'),
      localCount: (key) => held.get(key) ?? 0,
      localKeys: () => held.keys(),
      log: quietLogger(),
      ...(timing ? { timing } : {}),
    });
    return {
      places,
      async take(key: string, max: number) {
        const answer = await places.take(key, max);
        if (answer !== 'full') held.set(key, (held.get(key) ?? 0) + 1);
        return answer;
      },
      release(key: string) {
        held.set(key, (held.get(key) ?? 1) - 1);
        places.release(key, 'taken');
      },
    };
  }

  it('places taken on one instance count on the other; a place given back frees it on both', async () => {
    const [ca, cb] = twoInstances();
    const a = instance(ca);
    const b = instance(cb);
    expect(await a.take('member:event:1', 3)).toBe('taken');
    expect(await a.take('member:event:1', 3)).toBe('taken');
    expect(await b.take('member:event:1', 3)).toBe('taken');
    expect(await b.take('member:event:1', 3)).toBe('full');
    expect(await a.take('member:event:1', 3)).toBe('full');
    expect(await b.take('member:event:2', 3)).toBe('taken');
    a.release('member:event:1');
    await ca.run((redis) => redis.ping());
    expect(await b.take('member:event:1', 3)).toBe('taken');
    for (const { places } of [a, b]) await places.close();
  });

  it('many takes at once on two instances: exactly the cap gets in', async () => {
    const [ca, cb] = twoInstances();
    const both = [instance(ca), instance(cb)];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => both[i % 2]?.take('address:1.1.1.1', 7)),
    );
    expect(answers.filter((answer) => answer === 'taken')).toHaveLength(7);
    for (const { places } of both) await places.close();
  });

  it('a crashed instance’s places stop counting once its lease runs out', async () => {
    const [ca, cb] = twoInstances();
    const crashed = instance(ca, { leaseMs: 300, refreshMs: 100 });
    const alive = instance(cb, { leaseMs: 300, refreshMs: 100 });
    expect(await crashed.take('member:controller:5', 2)).toBe('taken');
    expect(await crashed.take('member:controller:5', 2)).toBe('taken');
    expect(await alive.take('member:controller:5', 2)).toBe('full');
    crashed.places.stopRefreshing();
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await alive.take('member:controller:5', 2)).toBe('taken');
    // The alive instance's own place still counts (its lease is refreshed).
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await alive.take('member:controller:5', 2)).toBe('taken');
    expect(await alive.take('member:controller:5', 2)).toBe('full');
    await alive.places.close();
  });

  it('a closed instance’s places stop counting at once', async () => {
    const [ca, cb] = twoInstances();
    const closing = instance(ca);
    const other = instance(cb);
    expect(await closing.take('member:video:9', 1)).toBe('taken');
    expect(await other.take('member:video:9', 1)).toBe('full');
    await closing.places.close();
    expect(await other.take('member:video:9', 1)).toBe('taken');
    await other.places.close();
  });
});
