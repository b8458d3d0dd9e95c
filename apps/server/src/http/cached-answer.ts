/**
 * One way to answer from a cache (issue 44): `cachedAnswer(schema, invalidatedBy)`. An answer that
 * every visitor polls (the car list, the leaderboards' first pages, the public raffle, `/me`) is
 * made once — checked and encoded by its zod schema as the route's serializer would, turned into
 * JSON, compressed once per encoding off the event loop — and sent as the bytes it already is,
 * until what it was made from is invalidated:
 *
 * - by facts: `cachedAnswer(LeaderboardResponse, { 'race.finished': () => true, … })` keeps answers
 *   by key (`get(key, load)`), and its `handlers` (subscribed in the owner module's `on`) drop those
 *   a fact says are stale. A read begun before a fact is answered but not kept (a generation
 *   counter), so an answer read while a change was committing is never served after its fact.
 * - by a new value: `cachedAnswer(CarsResponse, NEW_VALUE)` keeps one answer per object
 *   (`of(source, value)`) for read models that hand the same object while nothing they show
 *   changed and a new one when it does (the car list also follows presence and the clock, which
 *   no single fact covers; a member's cached row; a published raffle). Forgotten with the object.
 *
 * Routes keep the zod type provider: `return sendAnswer(request, reply, answer)` replies with the
 * bytes. A public answer (`{ revalidate: true }`) carries an ETag and `no-cache`, so a poll of an
 * unchanged one is a 304; the others keep the API's `no-store`. page-index.ts sends its HTML the
 * same way.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ZodType, z } from 'zod';
import type { DomainEventName, DomainEvents, EventHandlers } from '../events.js';

/** Encodings an answer is kept in, best first (those @fastify/compress offers). */
type BodyEncoding = 'br' | 'gzip';
/** Below this many bytes an answer is sent as it is (@fastify/compress's default threshold). */
const COMPRESS_THRESHOLD_BYTES = 1024;
/** Fastify's content type for the JSON it serializes itself, so a cached answer looks the same. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The best encoding an `Accept-Encoding` header takes (br, then gzip), or null. A coding with
 * `q=0` is refused; `*` takes br.
 */
export function acceptedEncoding(header: string | undefined): BodyEncoding | null {
  if (!header) return null;
  const accepted = new Set<string>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br') || accepted.has('*')) return 'br';
  return accepted.has('gzip') ? 'gzip' : null;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** An answer made once: its text, and its compressed bytes once asked for. */
export class PreparedAnswer {
  readonly bytes: number;
  #etag: string | undefined;
  readonly #encoded = new Map<BodyEncoding, Promise<Buffer>>();

  constructor(
    readonly text: string,
    readonly options: { contentType?: string; revalidate?: boolean; vary?: string } = {},
  ) {
    this.bytes = Buffer.byteLength(text);
  }

  /** A strong validator: the hash of the bytes, so it is the same on every instance and after a restart. */
  get etag(): string {
    this.#etag ??= `"${createHash('sha256').update(this.text).digest('base64url').slice(0, 32)}"`;
    return this.#etag;
  }

  /** The text compressed in `encoding`, made once (the same quality as the app's on-the-fly compression). */
  encoded(encoding: BodyEncoding): Promise<Buffer> {
    let encoded = this.#encoded.get(encoding);
    if (!encoded) {
      encoded =
        encoding === 'br'
          ? brotli(this.text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } })
          : gzipped(this.text);
      this.#encoded.set(encoding, encoded);
    }
    return encoded;
  }
}

/** Whether an `If-None-Match` header names this ETag (or `*`); weak forms match too (RFC 9110 §13.1.2). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * Replies with a prepared answer: its bytes in the best encoding the client takes. A public one is
 * kept by browsers and proxies but checked again each time (`no-cache`): a poll of an unchanged
 * answer costs a 304. Returns the reply, which an async handler returns (Fastify then waits for it).
 */
export async function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: PreparedAnswer,
): Promise<FastifyReply> {
  reply
    .type(answer.options.contentType ?? JSON_CONTENT_TYPE)
    .header('vary', answer.options.vary ?? 'accept-encoding');
  if (answer.options.revalidate) {
    reply.header('etag', answer.etag).header('cache-control', 'no-cache');
    if (matchesEtag(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
  }
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  if (encoding === null || answer.bytes < COMPRESS_THRESHOLD_BYTES) return reply.send(answer.text);
  const body = await answer.encoded(encoding);
  return reply.header('content-encoding', encoding).send(body);
}

/** `invalidatedBy` for an answer made from an object its read model replaces when it changes. */
export const NEW_VALUE = 'a new value';

/** Per fact: whether it makes a kept answer stale (given the fact and the answer's value). */
export type InvalidatingFacts<Value> = {
  [K in DomainEventName]?: (fact: DomainEvents[K], answer: Value) => boolean;
};

interface AnswerOptions {
  /** A public answer: sent with an ETag and `no-cache` (see `sendAnswer`). */
  revalidate?: boolean;
  /**
   * Typed by the schema but not checked by it at run time: for an answer too large to check on
   * the event loop each time it is made (a raffle's record, 20,000 entries: 15 ms checked, 3.5 ms
   * not). Its value comes from a presenter the compiler checks against the same type.
   */
  unchecked?: boolean;
}

/** Answers kept by key until a fact drops them. */
export class AnswersByKey<Schema extends ZodType, Key> {
  readonly #kept = new Map<Key, { value: z.output<Schema>; answer: PreparedAnswer }>();
  #generation = 0;
  /** Answers sent from memory and made from a read (tests and diagnostics). */
  readonly stats = { answered: 0, made: 0 };
  /** What the owner's module subscribes (its `on`): the facts that drop answers. */
  readonly handlers: EventHandlers;

  constructor(
    readonly schema: Schema,
    invalidatedBy: InvalidatingFacts<z.output<Schema>>,
    readonly options: AnswerOptions,
  ) {
    const handlers: Record<string, (fact: unknown) => void> = {};
    for (const [name, stale] of Object.entries(invalidatedBy) as [
      DomainEventName,
      (fact: unknown, answer: z.output<Schema>) => boolean,
    ][]) {
      handlers[name] = (fact) => {
        // Any read under way may hold what the fact changed: it is not kept.
        this.#generation += 1;
        for (const [key, kept] of this.#kept) if (stale(fact, kept.value)) this.#kept.delete(key);
      };
    }
    this.handlers = handlers as EventHandlers;
  }

  /** The answer for `key`, from memory or made from `load` (and kept unless a fact came meanwhile). */
  async get(key: Key, load: () => Promise<z.output<Schema>>): Promise<PreparedAnswer> {
    const kept = this.#kept.get(key);
    if (kept) {
      this.stats.answered += 1;
      return kept.answer;
    }
    const generation = this.#generation;
    const value = await load();
    const answer = prepare(this.schema, value, this.options);
    this.stats.made += 1;
    if (generation === this.#generation) this.#kept.set(key, { value, answer });
    return answer;
  }
}

/** One answer per source object, forgotten with it. */
export class AnswersPerValue<Schema extends ZodType> {
  readonly #answers = new WeakMap<object, PreparedAnswer>();

  constructor(
    readonly schema: Schema,
    readonly options: AnswerOptions,
  ) {}

  /** The answer made from `source` (its value by `value`, else the source itself). */
  of(source: z.output<Schema> & object): PreparedAnswer;
  of(source: object, value: () => z.output<Schema>): PreparedAnswer;
  of(source: object, value?: () => z.output<Schema>): PreparedAnswer {
    let answer = this.#answers.get(source);
    if (!answer) {
      answer = prepare(this.schema, value ? value() : (source as z.output<Schema>), this.options);
      this.#answers.set(source, answer);
    }
    return answer;
  }
}

function prepare<Schema extends ZodType>(
  schema: Schema,
  value: z.output<Schema>,
  options: AnswerOptions,
): PreparedAnswer {
  return new PreparedAnswer(JSON.stringify(options.unchecked ? value : z.encode(schema, value)), options);
}

export function cachedAnswer<Schema extends ZodType>(
  schema: Schema,
  invalidatedBy: typeof NEW_VALUE,
  options?: AnswerOptions,
): AnswersPerValue<Schema>;
export function cachedAnswer<Schema extends ZodType, Key>(
  schema: Schema,
  invalidatedBy: InvalidatingFacts<z.output<Schema>>,
  options?: AnswerOptions,
): AnswersByKey<Schema, Key>;
export function cachedAnswer<Schema extends ZodType, Key>(
  schema: Schema,
  invalidatedBy: typeof NEW_VALUE | InvalidatingFacts<z.output<Schema>>,
  options: AnswerOptions = {},
): AnswersPerValue<Schema> | AnswersByKey<Schema, Key> {
  return invalidatedBy === NEW_VALUE
    ? new AnswersPerValue(schema, options)
    : new AnswersByKey<Schema, Key>(schema, invalidatedBy, options);
}
