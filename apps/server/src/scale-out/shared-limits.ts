/**
 * Shared limits (issue 15): with several instances, the /api rate limit counts a client's
 * requests on all of them, in Redis (@fastify/rate-limit's own Redis store: INCR and PEXPIRE per
 * key, atomic), so round-robin behind the proxy does not multiply anyone's budget. Without
 * REDIS_URL the limiter keeps its in-memory store, exactly as before.
 */
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { REDIS_COMMAND_TIMEOUT_MS } from './redis-channels.js';

export interface SharedLimitsStore {
  /** The options to spread into @fastify/rate-limit's registration. */
  rateLimitOptions: { redis: Redis; nameSpace: string; skipOnError: boolean } | Record<string, never>;
  close(): Promise<void>;
}

export function sharedLimitsStore(
  settings: { redisUrl: string | null; redisNamespace: string },
  log: FastifyBaseLogger,
): SharedLimitsStore {
  if (settings.redisUrl === null) return { rateLimitOptions: {}, close: async () => {} };
  const redis = new Redis(settings.redisUrl, {
    // A request must not wait on a Redis that is down: @fastify/rate-limit lets it through
    // (skipOnError) and the log says so.
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // …nor on one that hangs: the count fails after this, and the request goes through.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  redis.on('error', (error) => log.warn({ err: error }, 'shared rate limits: Redis unreachable'));
  return {
    rateLimitOptions: { redis, nameSpace: `${settings.redisNamespace}:rate-limit:`, skipOnError: true },
    close: async () => {
      redis.disconnect();
    },
  };
}
