/**
 * The Redis side of the shared abuse limits (issue 15): keys under `<REDIS_NAMESPACE>:limits:`,
 * commands on the instance's command connection (no offline queue: a command while Redis is down
 * fails at once; a hung one gives up after REDIS_COMMAND_TIMEOUT_MS). When Redis cannot answer,
 * the counted limits count in memory (limit-stores.ts) and the socket places on this instance's
 * own counts, so each instance still limits what it sees itself. Logged once per outage (and once
 * when Redis answers again: the socket places' lease refresh asks it every few seconds), never
 * per request.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

export class SharedCounters {
  readonly #prefix: string;
  readonly #log: FastifyBaseLogger;
  #failing = false;

  readonly redis: Redis;

  constructor(deps: { redis: Redis; namespace: string; log: FastifyBaseLogger }) {
    this.redis = deps.redis;
    this.#prefix = `${deps.namespace}:limits:`;
    this.#log = deps.log.child({ component: 'shared-limits' });
  }

  /** The prefix of the limit `name`'s keys (rate-limiter-flexible adds `:<key>`). */
  prefix(name: string): string {
    return `${this.#prefix}${name}`;
  }

  /** A key of the limit `name` for `parts` (e-mails, addresses and ids as they are). */
  key(name: string, ...parts: Array<string | number>): string {
    return `${this.#prefix}${name}:${parts.join(':')}`;
  }

  /** Runs one Redis command; undefined when Redis did not answer (the limit fails open). */
  async run<T>(command: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    try {
      const result = await command(this.redis);
      if (this.#failing) {
        this.#failing = false;
        this.#log.info('shared limits: Redis answers again, limits count on every instance');
      }
      return result;
    } catch (error) {
      this.reportOutage(error);
      return undefined;
    }
  }

  /** Redis did not answer a limit (logged the first time of an outage). */
  reportOutage(error?: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#log.warn(
      { err: error },
      'shared limits: Redis unreachable, each instance limits on its own counts until it is back',
    );
  }
}
