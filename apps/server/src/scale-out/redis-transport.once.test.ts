/**
 * The revocations between instances when one is away from Redis (issue 39): two buses on the real
 * Redis stand for two instances, each through a proxy of its own that the test cuts (the instance
 * loses Redis) and mends. A revocation made while the other instance was away reaches it once
 * both are back, in whichever order they come back, and one heard already is not acted on twice.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events.js';
import { TEST_REDIS_URL } from '../test/instances.js';
import { quietLogger } from '../test/quiet-logger.js';
import { type StallProxy, startStallProxy } from '../test/stall-proxy.js';
import { RedisChannels } from './redis-channels.js';
import { RedisTransport } from './redis-transport.js';

/** ioredis tries again at most every 2 s once the link is back. */
const BACK_WITHIN = { timeout: 10_000, interval: 50 };

interface Instance {
  proxy: StallProxy;
  channels: RedisChannels;
  bus: EventBus;
  /** The sessions revoked this instance acted on, in order. */
  revoked: string[];
}

const started: Instance[] = [];
afterEach(async () => {
  for (const { channels, proxy } of started.splice(0)) {
    await channels.close();
    await proxy.close();
  }
});

async function instances(): Promise<[Instance, Instance]> {
  const namespace = `telerace_test_${randomBytes(6).toString('hex')}`;
  const start = async (): Promise<Instance> => {
    const proxy = await startStallProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
    const channels = new RedisChannels({
      url: `redis://127.0.0.1:${proxy.port}`,
      namespace,
      log: quietLogger(),
    });
    const bus = new EventBus({ transport: new RedisTransport({ channels, log: quietLogger() }) });
    const instance = { proxy, channels, bus, revoked: [] as string[] };
    bus.on('session.revoked', ({ sessionId }) => instance.revoked.push(sessionId));
    started.push(instance);
    expect(await channels.ready(5_000)).toBe(true);
    return instance;
  };
  return [await start(), await start()];
}

async function away(instance: Instance): Promise<void> {
  instance.proxy.cut();
  await expect.poll(() => instance.channels.connected, BACK_WITHIN).toBe(false);
}

async function back(instance: Instance): Promise<void> {
  instance.proxy.resume();
  await expect.poll(() => instance.channels.connected, BACK_WITHIN).toBe(true);
}

const revoke = (instance: Instance, sessionId: string) =>
  instance.bus.emit('session.revoked', { userId: 1, sessionId });

describe('revocations across a Redis outage', () => {
  it('one made while the other instance was away reaches it when it is back, and one it heard is not acted on again', async () => {
    const [a, b] = await instances();
    revoke(a, 'heard-before');
    await expect.poll(() => b.revoked, BACK_WITHIN).toEqual(['heard-before']);
    await away(b);
    revoke(a, 'made-while-away');
    await back(b);
    await expect.poll(() => b.revoked, BACK_WITHIN).toEqual(['heard-before', 'made-while-away']);
    // After the resend (Redis delivers in order): nothing more comes.
    revoke(a, 'after');
    await expect.poll(() => b.revoked, BACK_WITHIN).toEqual(['heard-before', 'made-while-away', 'after']);
  });

  it.each([
    ['the revoking instance', 0],
    ['the other instance', 1],
  ])(
    'one made while both were away reaches the other when both are back, %s back first',
    async (_, first) => {
      const [a, b] = await instances();
      await Promise.all([away(a), away(b)]);
      revoke(a, 'made-while-down');
      expect(a.revoked).toEqual(['made-while-down']);
      const order = first === 0 ? [a, b] : [b, a];
      for (const instance of order) await back(instance);
      await expect.poll(() => b.revoked, BACK_WITHIN).toEqual(['made-while-down']);
      revoke(a, 'after');
      await expect.poll(() => b.revoked, BACK_WITHIN).toEqual(['made-while-down', 'after']);
      expect(a.revoked).toEqual(['made-while-down', 'after']);
    },
  );
});
