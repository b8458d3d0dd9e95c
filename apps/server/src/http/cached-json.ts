/**
 * A response body serialized once for as long as the answer stays the same. The members' car list
 * is the same for everyone and changes a few times a minute, but is read by every signed-in
 * visitor every 5 s: comparing the fresh answer with the last one costs far less than checking it
 * against its schema and turning it into JSON again (what the route's serializer does each time).
 * Comparing values, rather than being told of changes, keeps it exact whatever the answer depends
 * on (presence, the clock, the directory).
 */
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { type ZodType, z } from 'zod';

/** Encodings a cached body is stored in, best first (those @fastify/compress offers). */
export type BodyEncoding = 'br' | 'gzip';
/** Below this many bytes a body is sent as it is (@fastify/compress's default threshold). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

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

function encode(json: string, encoding: BodyEncoding): Buffer {
  return encoding === 'br'
    ? // The same quality as the app's on-the-fly compression; paid once per change here.
      brotliCompressSync(json, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } })
    : gzipSync(json);
}

/** Structural equality of JSON-like values (plain objects, arrays, primitives). */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJsonValue(item, b[index]));
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameJsonValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

export class CachedJson<Schema extends ZodType> {
  #last: { value: z.output<Schema>; json: string; encoded: Partial<Record<BodyEncoding, Buffer>> } | null =
    null;
  /** How many answers were serialized (tests and diagnostics). */
  serialized = 0;

  constructor(readonly schema: Schema) {}

  /** The JSON of `value` as checked and encoded by the schema, reused while the value stays the same. */
  json(value: z.output<Schema>): string {
    if (this.#last && sameJsonValue(this.#last.value, value)) return this.#last.json;
    const json = JSON.stringify(z.encode(this.schema, value));
    this.serialized += 1;
    this.#last = { value, json, encoded: {} };
    return json;
  }

  /**
   * The body to send for `value` to a client accepting `acceptEncoding`: the JSON, or — once it is
   * worth compressing — its compressed bytes, compressed once per change instead of per request
   * (every visitor's browser asks for them every 5 s).
   */
  body(
    value: z.output<Schema>,
    acceptEncoding: string | undefined,
  ): { body: string | Buffer; encoding: BodyEncoding | null } {
    const json = this.json(value);
    const encoding = acceptedEncoding(acceptEncoding);
    const last = this.#last;
    if (encoding === null || last === null || Buffer.byteLength(json) < COMPRESS_THRESHOLD_BYTES) {
      return { body: json, encoding: null };
    }
    last.encoded[encoding] ??= encode(json, encoding);
    return { body: last.encoded[encoding], encoding };
  }
}

/**
 * JSON answers kept per object: for answers made from an immutable object that is replaced, never
 * changed, when its data changes — a member's cached users row, dropped by `user.changed`. The
 * answer is made once per row object and forgotten with it.
 */
export class JsonPerObject<Schema extends ZodType> {
  readonly #answers = new WeakMap<object, string>();

  constructor(readonly schema: Schema) {}

  json(key: object, value: () => z.output<Schema>): string {
    let json = this.#answers.get(key);
    if (json === undefined) {
      json = JSON.stringify(z.encode(this.schema, value()));
      this.#answers.set(key, json);
    }
    return json;
  }
}

/** Fastify's content type for the JSON it serializes itself, so a cached body looks the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
