/**
 * Calls to the leader (issue 15, docs/decisions.md "Scale-out"): a command that only the leader's
 * race engine may run (join the lobby, ready, ping, start, end, open the winners' lobby), received
 * by a follower from its own sockets or routes, goes to the leader over Redis and its answer (or
 * refusal, as the same DomainError) comes back. Only the leader listens on the calls channel, so a
 * call published while nobody leads (a failover in progress) is refused at once as "no leader"
 * instead of waiting: the client retries, as it does for a busy engine.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../domain-error.js';
import { REDIS_COMMAND_TIMEOUT_MS } from './redis-channels.js';

/** Nobody leads right now, or the leader did not answer in time: worth retrying in a moment. */
export class NoLeaderError extends Error {
  constructor(message = 'no instance leads right now') {
    super(message);
    this.name = 'NoLeaderError';
  }
}

export type LeaderHandler = (name: string, payload: unknown) => Promise<unknown> | unknown;

export interface LeaderCalls {
  /** Runs `name` on the leader and answers what it answered; throws its DomainError, or NoLeaderError. */
  call(name: string, payload: unknown): Promise<unknown>;
  /** Sends `name` to the leader without waiting for anything (pings: lost ones do not matter). */
  tell(name: string, payload: unknown): void;
  /** While this instance leads: it answers the calls. */
  serve(handler: LeaderHandler): Promise<void>;
  unserve(): Promise<void>;
  close(): Promise<void>;
}

const CallMessage = z.object({
  id: z.string(),
  replyTo: z.string().nullable(),
  name: z.string(),
  payload: z.unknown(),
});

const DOMAIN_ERROR_KINDS = [
  'invalid',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'unavailable',
] as const satisfies readonly DomainErrorKind[];

const ReplyMessage = z.discriminatedUnion('ok', [
  z.object({ id: z.string(), ok: z.literal(true), value: z.unknown() }),
  z.object({
    id: z.string(),
    ok: z.literal(false),
    message: z.string(),
    /** Set when the leader refused with a DomainError: the caller throws the same. */
    domain: z
      .object({
        kind: z.enum(DOMAIN_ERROR_KINDS),
        errorKey: z.string(),
        retryAfterSeconds: z.number().optional(),
      })
      .nullable(),
  }),
]);
type ReplyMessage = z.infer<typeof ReplyMessage>;

export interface RedisLeaderCallsOptions {
  redisUrl: string;
  /** REDIS_NAMESPACE: the channels of one site. */
  namespace: string;
  log: FastifyBaseLogger;
  /** How long a call waits for the leader's answer. */
  timeoutMs?: number;
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class RedisLeaderCalls implements LeaderCalls {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #callsChannel: string;
  readonly #repliesChannel: string;
  readonly #waiting = new Map<string, Waiting>();
  readonly #timeoutMs: number;
  readonly #log: FastifyBaseLogger;
  #handler: LeaderHandler | null = null;
  readonly #subscribed: Promise<unknown>;

  constructor(options: RedisLeaderCallsOptions) {
    this.#log = options.log;
    this.#timeoutMs = options.timeoutMs ?? 3_000;
    this.#callsChannel = `${options.namespace}:leader:calls`;
    this.#repliesChannel = `${options.namespace}:leader:replies:${randomUUID()}`;
    // A call must not sit in ioredis's offline queue past its own timeout: fail fast while down.
    const settings = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
    // Nor on a Redis that hangs: the publish fails after this, and the call with NoLeaderError.
    this.#publisher = new Redis(options.redisUrl, { ...settings, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
    this.#subscriber = new Redis(options.redisUrl, settings);
    for (const connection of [this.#publisher, this.#subscriber])
      connection.on('error', (error) => this.#log.warn({ err: error }, 'leader calls: Redis unreachable'));
    this.#subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.#repliesChannel) this.#answered(text);
      else if (channel === this.#callsChannel) void this.#called(text);
    });
    this.#subscribed = this.#subscriber.subscribe(this.#repliesChannel).catch((error) => {
      this.#log.error({ err: error }, 'leader calls: could not listen for answers');
    });
  }

  async call(name: string, payload: unknown): Promise<unknown> {
    await this.#subscribed;
    const id = randomUUID();
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new NoLeaderError(`the leader did not answer ${name} in time`));
      }, this.#timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
    });
    let listeners: number;
    try {
      listeners = await this.#publisher.publish(
        this.#callsChannel,
        JSON.stringify({ id, replyTo: this.#repliesChannel, name, payload }),
      );
    } catch (error) {
      this.#settle(id)?.reject(new NoLeaderError(`Redis unreachable: ${(error as Error).message}`));
      return answer;
    }
    if (listeners === 0) this.#settle(id)?.reject(new NoLeaderError());
    return answer;
  }

  tell(name: string, payload: unknown): void {
    this.#publisher
      .publish(this.#callsChannel, JSON.stringify({ id: randomUUID(), replyTo: null, name, payload }))
      .catch(() => undefined);
  }

  async serve(handler: LeaderHandler): Promise<void> {
    this.#handler = handler;
    await this.#subscriber.subscribe(this.#callsChannel);
  }

  async unserve(): Promise<void> {
    this.#handler = null;
    await this.#subscriber.unsubscribe(this.#callsChannel).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#handler = null;
    for (const [id] of this.#waiting) this.#settle(id)?.reject(new NoLeaderError('closing'));
    this.#publisher.disconnect();
    this.#subscriber.disconnect();
  }

  async #called(text: string): Promise<void> {
    const parsed = CallMessage.safeParse(safeJson(text));
    const handler = this.#handler;
    if (!parsed.success || !handler) return;
    const { id, replyTo, name, payload } = parsed.data;
    let reply: ReplyMessage;
    try {
      reply = { id, ok: true, value: (await handler(name, payload)) ?? null };
    } catch (error) {
      if (!(error instanceof DomainError))
        this.#log.error({ err: error, call: name }, 'a leader call failed');
      reply = {
        id,
        ok: false,
        message: (error as Error).message,
        domain:
          error instanceof DomainError
            ? { kind: error.kind, errorKey: error.errorKey, retryAfterSeconds: error.retryAfterSeconds }
            : null,
      };
    }
    if (replyTo !== null)
      await this.#publisher.publish(replyTo, JSON.stringify(reply)).catch(() => undefined);
  }

  #answered(text: string): void {
    const parsed = ReplyMessage.safeParse(safeJson(text));
    if (!parsed.success) return;
    const reply = parsed.data;
    const waiting = this.#settle(reply.id);
    if (!waiting) return;
    if (reply.ok) waiting.resolve(reply.value);
    else if (reply.domain)
      waiting.reject(
        new DomainError(reply.domain.kind, reply.message, reply.domain.errorKey as DomainError['errorKey'], {
          retryAfterSeconds: reply.domain.retryAfterSeconds,
        }),
      );
    else waiting.reject(new Error(`the leader failed: ${reply.message}`));
  }

  #settle(id: string): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    if (!waiting) return undefined;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    return waiting;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
