/**
 * Where the abuse limits keep their counts (issue 15): in this process's memory without
 * REDIS_URL (exactly as one instance always did), in Redis shared by every instance with it —
 * failed logins, wrong control codes, wrong current passwords, e-mail address changes, and the
 * socket places per member and per address. The /api rate limit has its own store
 * (shared-limits.ts, @fastify/rate-limit's).
 */
import type { FastifyBaseLogger } from 'fastify';
import { type LimitKey, type LimitWindowFactory, localLimitWindows } from '../limit-window.js';
import { LocalLoginThrottle, type LoginThrottle } from '../modules/auth/login-limiter.js';
import type { SocketAdmission } from '../sockets/socket-admission.js';
import type { RedisChannels } from './redis-channels.js';
import { RedisLoginThrottle } from './redis-login-throttle.js';
import { RedisSlidingWindow } from './redis-sliding-window.js';
import { RedisSocketPlaces } from './redis-socket-places.js';
import { SharedCounters } from './shared-counters.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stores of the abuse limits (in memory, or shared through Redis). */
    limitStores: LimitStores;
  }
}

export class LimitStores {
  readonly #counters: SharedCounters | null;
  readonly #socketPlaces: RedisSocketPlaces | null;

  constructor(
    redis: RedisChannels | null,
    namespace: string,
    log: FastifyBaseLogger,
    sockets: SocketAdmission,
  ) {
    this.#counters = redis ? new SharedCounters(redis.commands, namespace, log) : null;
    this.#socketPlaces =
      redis && this.#counters
        ? new RedisSocketPlaces(
            this.#counters,
            redis.instanceId,
            (key) => sockets.heldHere(key),
            () => sockets.keysHere(),
            log,
          )
        : null;
    if (this.#socketPlaces) sockets.share(this.#socketPlaces);
  }

  /** A sliding-window limit; `name` keeps its keys apart from the other limits' in Redis. */
  readonly window: LimitWindowFactory = <K extends LimitKey>(
    name: string,
    limit: number,
    windowMs: number,
  ) => {
    const counters = this.#counters;
    return counters
      ? new RedisSlidingWindow<K>(counters, name, limit, windowMs)
      : localLimitWindows()<K>(name, limit, windowMs);
  };

  /** The failed-login throttle. */
  loginThrottle(): LoginThrottle {
    return this.#counters ? new RedisLoginThrottle(this.#counters) : new LocalLoginThrottle();
  }

  async close(): Promise<void> {
    await this.#socketPlaces?.close();
  }
}
