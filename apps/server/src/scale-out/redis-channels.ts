/**
 * The instance's two Redis connections (issue 15): one publishes, one subscribes (a subscribed
 * connection can do nothing else). Every channel is named under the site's REDIS_NAMESPACE. The
 * domain events (redis-transport.ts) and the cross-instance relay (redis-relay-bridge.ts) share
 * them.
 *
 * ioredis reconnects on its own with a growing delay (50 ms more per attempt, at most 2 s) and
 * subscribes again to every channel once back. Meanwhile nothing is queued: a message that cannot
 * be published now is dropped (`publish` says so), because a drive or a fact replayed late is
 * worse than one lost — the car's deadman and the next fact correct what was missed. State
 * changes are logged once each (connected, lost), never the URL (it may hold a password).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * How long a command may wait for Redis's answer. A Redis that hangs (stopped, or a network that
 * drops packets without closing) keeps the connection "ready": without this bound a rate-limit
 * count, a login throttle or a leader call would wait forever, and with it every /api request.
 * Past it the command fails and its caller degrades as when Redis is down.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export interface RedisChannelsOptions {
  url: string;
  /** REDIS_NAMESPACE: prefix of every channel. */
  namespace: string;
  log: FastifyBaseLogger;
}

/** Why a message could not go: Redis is down (cross-instance degraded), or the channels are closed. */
export type PublishResult = 'sent' | 'redis_down';

export class RedisChannels {
  /** This process among the instances: facts and relay messages say who sent them. */
  readonly instanceId = randomUUID();
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #handlers = new Map<string, (message: string) => void>();
  readonly #log: FastifyBaseLogger;
  readonly #namespace: string;
  readonly #stateListeners = new Set<(connected: boolean) => void>();
  /** Whether both connections were last seen ready (what the log and the listeners were told). */
  #connected = false;
  #closed = false;
  /** A publish failed since the last one that went: logged once per such run, not per message. */
  #publishFailing = false;

  constructor(options: RedisChannelsOptions) {
    this.#log = options.log.child({ component: 'redis' });
    this.#namespace = options.namespace;
    const common: RedisOptions = {
      // Its reconnect delay (times × 50 ms, at most 2 s) is the backoff we want.
      lazyConnect: false,
      // A command while disconnected fails at once instead of waiting for the connection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectionName: `telerace-${this.instanceId}`,
    };
    this.#publisher = new Redis(options.url, { ...common, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
    // The subscriber keeps its SUBSCRIBEs until it is connected, however long that takes (they
    // are not messages): a channel subscribed while Redis is down is heard once it is back.
    this.#subscriber = new Redis(options.url, {
      ...common,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    });
    this.#subscriber.on('message', (channel: string, message: string) =>
      this.#handlers.get(channel)?.(message),
    );
    for (const connection of [this.#publisher, this.#subscriber]) {
      connection.on('ready', () => this.#checkState());
      connection.on('close', () => this.#checkState());
      connection.on('end', () => this.#checkState());
      // Connection errors come again at every attempt: the state change is what is logged.
      connection.on('error', (error: Error) => {
        if (this.#connected) this.#log.warn({ err: error }, 'Redis connection error');
        this.#checkState();
      });
    }
  }

  /** Whether both connections are up: a message published now reaches the other instances. */
  get connected(): boolean {
    return this.#publisher.status === 'ready' && this.#subscriber.status === 'ready';
  }

  /**
   * The connection for plain commands (the shared limits' counters, limit-stores.ts): the
   * publishing one, never subscribed; a command while Redis is down fails at once.
   */
  get commands(): Redis {
    return this.#publisher;
  }

  /** Called with the new state when the connections go down or come back. */
  onStateChange(listener: (connected: boolean) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Resolves once both connections are up and every channel subscribed so far is, or after `timeoutMs`. */
  async ready(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.connected && Date.now() < deadline && !this.#closed) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!this.connected) {
      this.#log.warn(
        { timeoutMs },
        'Redis unreachable at start-up: this instance works alone until it connects (facts and remote cars do not cross)',
      );
      return false;
    }
    await this.subscribed();
    return true;
  }

  /** Resolves once the channels subscribed so far are (after a reconnect: subscribed again). */
  async subscribed(): Promise<void> {
    // ioredis subscribes again just after it says 'ready' (when the state listeners run); a PING
    // on the subscriber answers after the SUBSCRIBEs queued before it.
    await new Promise((resolve) => setImmediate(resolve));
    await this.#subscriber.ping().catch(() => undefined);
  }

  /**
   * Publishes on `name` (under the namespace); nothing is queued while Redis is down. `onFailed`
   * hears of a message written but not taken (a hung Redis: the command timed out).
   */
  publish(name: string, message: string, onFailed?: () => void): PublishResult {
    if (this.#closed || this.#publisher.status !== 'ready') return 'redis_down';
    this.#publisher.publish(this.#channel(name), message).then(
      () => {
        this.#publishFailing = false;
      },
      (error: unknown) => {
        onFailed?.();
        // A hung Redis fails every drive of every car (50 a second each): one line per outage.
        if (this.#publishFailing || this.#closed) return;
        this.#publishFailing = true;
        this.#log.warn(
          { err: error, channel: name },
          'Redis publish failed (further failures not logged until one goes)',
        );
      },
    );
    return 'sent';
  }

  /** Hears `name` (one handler per channel); returns the unsubscribe. */
  subscribe(name: string, handler: (message: string) => void): () => void {
    const channel = this.#channel(name);
    this.#handlers.set(channel, handler);
    this.#subscriber.subscribe(channel).catch((error: unknown) => {
      if (!this.#closed) this.#log.warn({ err: error, channel: name }, 'Redis subscribe failed');
    });
    return () => {
      if (this.#handlers.get(channel) !== handler) return;
      this.#handlers.delete(channel);
      if (this.#closed) return;
      this.#subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  /** App close: both connections end (QUIT, or at once when Redis is unreachable). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stateListeners.clear();
    await Promise.all(
      [this.#publisher, this.#subscriber].map((connection) =>
        connection.status === 'ready'
          ? connection.quit().then(
              () => undefined,
              () => connection.disconnect(),
            )
          : connection.disconnect(),
      ),
    );
  }

  #channel(name: string): string {
    return `${this.#namespace}:${name}`;
  }

  #checkState(): void {
    const connected = this.connected;
    if (connected === this.#connected || this.#closed) return;
    this.#connected = connected;
    if (connected) this.#log.info('Redis connected: facts and remote cars cross between instances');
    else
      this.#log.warn(
        'Redis connection lost: cross-instance delivery degraded (this instance keeps its own facts and cars; drivers of cars on other instances see them offline) — reconnecting',
      );
    for (const listener of this.#stateListeners) listener(connected);
  }
}
