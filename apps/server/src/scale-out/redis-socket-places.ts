/**
 * Socket places shared by every instance (issue 15): a member's (or an address's) sockets open on
 * instance A count against the cap on instance B.
 *
 * Per key (`sockets:member:event:42`, `sockets:address:1.2.3.4`) a hash of instance id → places
 * held there, and one sorted set of instance leases (instance id → expiry time), refreshed every
 * LEASE_REFRESH_MS. Taking a place sums the fields of instances whose lease is alive — dropping
 * the others: a crashed instance's sockets stop counting LEASE_MS after its last refresh — and
 * adds one to its own field if under the cap, in one Lua script (atomic across instances).
 * Giving a place back subtracts one. Times are Redis's own clock (TIME): one clock for all.
 *
 * This instance's in-memory counts (socket-admission.ts) stay the truth for its own field: a key
 * whose Redis field could not follow (Redis down at take or release) is written again from them
 * at the next refresh, and after an outage longer than the lease (the others may have dropped
 * this instance's fields) every key is.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { SharedCounters } from './shared-counters.js';

export const LEASE_MS = 15_000;
export const LEASE_REFRESH_MS = 5_000;
/** A place hash nobody took from for this long is dropped (its places were all given back, or lost). */
const PLACES_TTL_MS = 24 * 60 * 60_000;

const NOW_MS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/** KEYS places, leases; ARGV instance, max, leaseMs, placesTtlMs → 1 taken, 0 full. */
const TAKE = `${NOW_MS}
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #fields, 2 do
  local lease = redis.call('ZSCORE', KEYS[2], fields[i])
  if lease and tonumber(lease) > now then
    total = total + tonumber(fields[i + 1])
  else
    redis.call('HDEL', KEYS[1], fields[i])
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** KEYS places; ARGV instance. */
const RELEASE = `
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
`;

/** KEYS leases; ARGV instance, leaseMs. Drops the expired leases of crashed instances. */
const REFRESH_LEASE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
`;

/** Whether a place was taken in Redis, refused there (full), or Redis did not answer. */
export type SharedPlace = 'taken' | 'full' | 'unshared';

export interface RedisSocketPlacesDeps {
  counters: SharedCounters;
  instanceId: string;
  /** This instance's own count per key (its in-memory places). */
  localCount: (key: string) => number;
  localKeys: () => Iterable<string>;
  log: FastifyBaseLogger;
  /** Tests shorten the lease to see a crashed instance's places expire. */
  timing?: { leaseMs: number; refreshMs: number };
}

export class RedisSocketPlaces {
  readonly #timer: ReturnType<typeof setInterval>;
  /** Keys whose Redis field may differ from this instance's count. */
  readonly #unsynced = new Set<string>();
  #lastRefreshAt = Date.now();
  readonly #leases: string;
  readonly #leaseMs: number;

  private readonly counters: SharedCounters;
  private readonly instanceId: string;
  private readonly localCount: (key: string) => number;
  private readonly localKeys: () => Iterable<string>;
  private readonly log: FastifyBaseLogger;

  constructor(deps: RedisSocketPlacesDeps) {
    const { counters, timing = { leaseMs: LEASE_MS, refreshMs: LEASE_REFRESH_MS } } = deps;
    this.counters = counters;
    this.instanceId = deps.instanceId;
    this.localCount = deps.localCount;
    this.localKeys = deps.localKeys;
    this.log = deps.log;
    this.#leases = counters.key('socket-leases', 'instances');
    this.#leaseMs = timing.leaseMs;
    this.#timer = setInterval(() => void this.refresh(), timing.refreshMs);
    this.#timer.unref();
    // The first lease as soon as the connection is up (before it, a command fails at once and
    // would be reported as an outage).
    const firstLease = () => void this.refresh();
    if (counters.redis.status === 'ready') firstLease();
    else counters.redis.once('ready', firstLease);
  }

  /** Takes a place under `max` counted on every instance. */
  async take(key: string, max: number): Promise<SharedPlace> {
    const answer = await this.counters.run((redis) =>
      redis.eval(
        TAKE,
        2,
        this.#places(key),
        this.#leases,
        this.instanceId,
        max,
        this.#leaseMs,
        PLACES_TTL_MS,
      ),
    );
    if (answer === undefined) {
      this.#unsynced.add(key);
      return 'unshared';
    }
    return Number(answer) === 1 ? 'taken' : 'full';
  }

  /** Gives back a place (after this instance's own count went down). */
  release(key: string, place: SharedPlace): void {
    if (place === 'full') return;
    if (place === 'unshared') {
      this.#unsynced.add(key);
      return;
    }
    void this.counters
      .run((redis) => redis.eval(RELEASE, 1, this.#places(key), this.instanceId))
      .then((answer) => {
        if (answer === undefined) this.#unsynced.add(key);
      });
  }

  /** Keeps this instance's lease alive and writes back the counts Redis missed. */
  async refresh(): Promise<void> {
    const refreshed = await this.counters.run((redis) =>
      redis.eval(REFRESH_LEASE, 1, this.#leases, this.instanceId, this.#leaseMs),
    );
    if (refreshed === undefined) return;
    const now = Date.now();
    // Longer than a lease without one: other instances may have dropped all of this one's fields.
    if (now - this.#lastRefreshAt >= this.#leaseMs)
      for (const key of this.localKeys()) this.#unsynced.add(key);
    this.#lastRefreshAt = now;
    if (this.#unsynced.size === 0) return;
    const keys = [...this.#unsynced];
    this.#unsynced.clear();
    const written = await this.counters.run((redis) => {
      const batch = redis.multi();
      for (const key of keys) {
        const count = this.localCount(key);
        if (count > 0)
          batch.hset(this.#places(key), this.instanceId, count).pexpire(this.#places(key), PLACES_TTL_MS);
        else batch.hdel(this.#places(key), this.instanceId);
      }
      return batch.exec();
    });
    if (written === undefined) for (const key of keys) this.#unsynced.add(key);
    else this.log.debug({ keys: keys.length }, 'shared socket places written back');
  }

  /** No more refreshes: the lease runs out as a crashed instance's does (close, tests). */
  stopRefreshing(): void {
    clearInterval(this.#timer);
  }

  /** App close: no more refreshes; the lease goes, so this instance's places stop counting at once. */
  async close(): Promise<void> {
    this.stopRefreshing();
    await this.counters.run((redis) => redis.zrem(this.#leases, this.instanceId));
  }

  #places(key: string): string {
    return this.counters.key('sockets', key);
  }
}
