/**
 * The log-outs the database could not record (issue 39). A log-out clears the refresh cookie
 * whatever happens, but while the database is away the session's revocation cannot be written,
 * and the same token (a copy, or a cookie the browser did not drop) would refresh again once it
 * is back. So the token's hash waits here until the revocation is written: a refresh or a cookie
 * sign-in presenting it writes it first (failing, like any refresh, while the database is still
 * away), and the auth module retries every waiting one every RETRY_MS.
 *
 * In this process's memory, and with REDIS_URL in a Redis set as well: an instance that did not
 * take the log-out writes it before refreshing that token, and any instance's retry writes it if
 * the one that took it stops first. A Redis that does not answer leaves this instance with what it
 * holds itself (as the shared limits do).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

/** How often the waiting log-outs are tried again. */
export const PENDING_LOGOUTS_RETRY_MS = 5_000;
/** At most this many wait in memory (a flood of log-outs with made-up cookies during an outage). */
export const PENDING_LOGOUTS_MAX = 10_000;

/** Writes one log-out (the refresh token's hash): throws while the database cannot. */
export type RecordLogout = (tokenHash: string) => Promise<void>;

export class PendingLogouts {
  readonly #hashes = new Set<string>();
  readonly #redis: Redis | null;
  readonly #key: string;
  readonly #log: FastifyBaseLogger;
  /** Redis did not answer last time (logged once per outage, not per request). */
  #redisFailing = false;

  constructor(deps: { redis: Redis | null; namespace: string; log: FastifyBaseLogger }) {
    this.#redis = deps.redis;
    this.#key = `${deps.namespace}:pending-logouts`;
    this.#log = deps.log;
  }

  /** Keeps a log-out to write later; false when it could be kept nowhere (memory full, no Redis). */
  async hold(tokenHash: string): Promise<boolean> {
    const inMemory = this.#hashes.size < PENDING_LOGOUTS_MAX;
    if (inMemory) this.#hashes.add(tokenHash);
    const inRedis = (await this.#ask((redis) => redis.sadd(this.#key, tokenHash))) !== undefined;
    return inMemory || inRedis;
  }

  /** Writes the log-out of this token first if it waits; throws as `record` does (it then still waits). */
  async settle(tokenHash: string, record: RecordLogout): Promise<void> {
    const waiting =
      this.#hashes.has(tokenHash) ||
      (await this.#ask((redis) => redis.sismember(this.#key, tokenHash))) === 1;
    if (waiting) await this.#write(tokenHash, record);
  }

  /** Writes every waiting log-out, in turn; stops at the first that fails (the rest waits). */
  async settleAll(record: RecordLogout): Promise<void> {
    const hashes = new Set(this.#hashes);
    for (const hash of (await this.#ask((redis) => redis.smembers(this.#key))) ?? []) hashes.add(hash);
    for (const hash of hashes) await this.#write(hash, record);
  }

  get size(): number {
    return this.#hashes.size;
  }

  async #write(tokenHash: string, record: RecordLogout): Promise<void> {
    await record(tokenHash);
    this.#hashes.delete(tokenHash);
    await this.#ask((redis) => redis.srem(this.#key, tokenHash));
  }

  /** One Redis command; undefined without Redis or when it does not answer (logged). */
  async #ask<T>(command: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    if (!this.#redis) return undefined;
    try {
      const answer = await command(this.#redis);
      this.#redisFailing = false;
      return answer;
    } catch (error) {
      if (!this.#redisFailing)
        this.#log.warn(
          { err: error },
          'pending log-outs: Redis does not answer, this instance keeps its own',
        );
      this.#redisFailing = true;
      return undefined;
    }
  }
}
