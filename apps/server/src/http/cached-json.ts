/**
 * A response body serialized once for as long as the answer stays the same. The members' car list
 * is the same for everyone and changes a few times a minute, but is read by every signed-in
 * visitor every 5 s: comparing the fresh answer with the last one costs far less than checking it
 * against its schema and turning it into JSON again (what the route's serializer does each time).
 * Comparing values, rather than being told of changes, keeps it exact whatever the answer depends
 * on (presence, the clock, the directory).
 */
import { type ZodType, z } from 'zod';

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
  #last: { value: z.output<Schema>; json: string } | null = null;
  /** How many answers were serialized (tests and diagnostics). */
  serialized = 0;

  constructor(readonly schema: Schema) {}

  /** The JSON of `value` as checked and encoded by the schema, reused while the value stays the same. */
  json(value: z.output<Schema>): string {
    if (this.#last && sameJsonValue(this.#last.value, value)) return this.#last.json;
    const json = JSON.stringify(z.encode(this.schema, value));
    this.serialized += 1;
    this.#last = { value, json };
    return json;
  }
}

/** Fastify's content type for the JSON it serializes itself, so a cached body looks the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
