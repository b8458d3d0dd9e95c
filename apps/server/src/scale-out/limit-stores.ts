/**
 * Where the abuse limits keep their counts (issue 15): in this process's memory without
 * REDIS_URL (exactly as one instance always did), in Redis shared by every instance with it —
 * failed logins, wrong control codes, wrong current passwords, e-mail address changes, race
 * commands (rate-limiter-flexible's RateLimiterMemory / RateLimiterRedis), and the socket places
 * per member and per address (redis-socket-places.ts). The /api rate limit has its own store
 * (shared-limits.ts, @fastify/rate-limit's).
 *
 * While Redis does not answer (down, or hung past REDIS_COMMAND_TIMEOUT_MS: the command
 * connection gives up after it) a limit counts in this process's memory, its `insuranceLimiter`:
 * each instance still limits what it sees during the outage, logged once.
 */
import type { FastifyBaseLogger } from 'fastify';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import {
  type LimiterStore,
  type LimitWindowFactory,
  limitWindows,
  memoryLimiters,
  windowSeconds,
} from '../limit-window.js';
import { LoginThrottle } from '../modules/auth/login-limiter.js';
import type { SocketAdmission } from '../sockets/socket-admission.js';
import type { RedisChannels } from './redis-channels.js';
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

  constructor(deps: {
    redis: RedisChannels | null;
    namespace: string;
    log: FastifyBaseLogger;
    sockets: SocketAdmission;
  }) {
    const { redis, namespace, log, sockets } = deps;
    this.#counters = redis ? new SharedCounters({ redis: redis.commands, namespace, log }) : null;
    this.#socketPlaces =
      redis && this.#counters
        ? new RedisSocketPlaces({
            counters: this.#counters,
            instanceId: redis.instanceId,
            localCount: (key) => sockets.heldHere(key),
            localKeys: () => sockets.keysHere(),
            log,
          })
        : null;
    if (this.#socketPlaces) sockets.share(this.#socketPlaces);
  }

  /** Builds a limit's limiter in the store this app uses. */
  readonly limiters: LimiterStore = (name, points, windowMs) => {
    const counters = this.#counters;
    return counters ? redisLimiter(counters, name, points, windowMs) : memoryLimiters(name, points, windowMs);
  };

  /** A counted limit; `name` keeps its keys apart from the other limits' in Redis. */
  readonly window: LimitWindowFactory = limitWindows(this.limiters);

  /** The failed-login throttle. */
  loginThrottle(): LoginThrottle {
    return new LoginThrottle({ store: this.limiters });
  }

  async close(): Promise<void> {
    await this.#socketPlaces?.close();
  }
}

/**
 * A limiter counting in Redis (atomic across instances), in this process's memory while Redis does
 * not answer.
 */
export function redisLimiter(
  counters: SharedCounters,
  name: string,
  points: number,
  windowMs: number,
): RateLimiterAbstract {
  const duration = windowSeconds(windowMs);
  return new RateLimiterRedis({
    storeClient: counters.redis,
    keyPrefix: counters.prefix(name),
    points,
    duration,
    // A key refused once is refused here until its window ends without asking Redis again (a
    // member flooding commands costs no more Redis calls than the budget).
    inMemoryBlockOnConsumed: points + 1,
    insuranceLimiter: new OutageLimiter(counters, { keyPrefix: name, points, duration }),
  });
}

/** The insurance: counts in memory, and says once per outage that the limits count per instance. */
class OutageLimiter extends RateLimiterMemory {
  constructor(
    private readonly counters: SharedCounters,
    options: { keyPrefix: string; points: number; duration: number },
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.counters.reportOutage();
    return super.consume(...args);
  }

  override penalty(...args: Parameters<RateLimiterMemory['penalty']>) {
    this.counters.reportOutage();
    return super.penalty(...args);
  }

  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.counters.reportOutage();
    return super.reward(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.counters.reportOutage();
    return super.get(...args);
  }

  override block(...args: Parameters<RateLimiterMemory['block']>) {
    this.counters.reportOutage();
    return super.block(...args);
  }

  override delete(...args: Parameters<RateLimiterMemory['delete']>) {
    this.counters.reportOutage();
    return super.delete(...args);
  }
}
