/**
 * The Redis side of the shared abuse limits (issue 15): keys under `<REDIS_NAMESPACE>:limits:`,
 * commands on the instance's command connection (no offline queue: a command while Redis is down
 * fails at once). A limit fails open when Redis cannot answer — the caller counts the answer as
 * "no events elsewhere" and keeps its in-memory counts as the floor, so each instance still limits
 * what it saw itself. Logged once per outage (and once when Redis answers again), never per request.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

export class SharedCounters {
  readonly #prefix: string;
  readonly #log: FastifyBaseLogger;
  #failing = false;

  constructor(
    readonly redis: Redis,
    namespace: string,
    log: FastifyBaseLogger,
  ) {
    this.#prefix = `${namespace}:limits:`;
    this.#log = log.child({ component: 'shared-limits' });
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
      if (!this.#failing) {
        this.#failing = true;
        this.#log.warn(
          { err: error },
          'shared limits: Redis unreachable, each instance limits on its own counts until it is back',
        );
      }
      return undefined;
    }
  }
}
