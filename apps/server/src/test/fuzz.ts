/**
 * Test support for the fuzz tests (issue 26, item 8): fast-check's seed and counts, values
 * generated from a schema the server validates with (zod → JSON Schema), and the hostile changes
 * made to them — wrong types, missing and extra fields, huge strings, deep nesting,
 * NaN/Infinity/-0, prototype keys (`__proto__`, `constructor`), unknown `type`s.
 *
 * The seed is fixed, so a failure in CI replays the same way anywhere: fast-check's report names
 * the seed and the path of the failing case (`FUZZ_SEED=<seed>` replays the run; the path goes in
 * `fc.assert`'s `path`). `FUZZ_RUNS=<n>` raises the counts for a local run (each test says how).
 */
import fc from 'fast-check';
import { z } from 'zod';
import { TEST_DB_KIND } from './app.js';

/**
 * The seed the fuzz tests run with, unless FUZZ_SEED says another: fixed, and one per test project,
 * so the pglite and postgres runs of a suite try different cases (twice the cases for the time).
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? (TEST_DB_KIND === 'postgres' ? 26_009 : 26_008));

/**
 * `ci` cases in CI; with FUZZ_RUNS set (a longer local run), FUZZ_RUNS × `scale` (a route over
 * HTTP costs far more per case than a schema or a socket message).
 */
export function fuzzCount(ci: number, scale = 1): number {
  const local = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(local) && local > 0 ? Math.max(1, Math.round(local * scale)) : ci;
}

/** fast-check's parameters for `runs` cases with the fixed seed. */
export const fuzzParameters = (runs: number) => ({ seed: FUZZ_SEED, numRuns: runs });

/** The JSON Schema that zod's toJSONSchema writes (the parts the generator reads). */
interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** The schema's input side as JSON Schema (what a client sends, before transforms and defaults). */
export const jsonSchemaOf = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/**
 * A number written as raw JSON text (`1e999` parses as Infinity, `-0` stays negative zero):
 * JSON.stringify writes NaN and Infinity as `null`, so they are carried as a marker string that
 * `jsonText` turns back into the token.
 */
const RAW_MARK = '\u0000raw:';
const raw = (token: string): string => `${RAW_MARK}${token}\u0000`;
const RAW_TOKEN = /"\\u0000raw:([^"\\]*)\\u0000"/g;

/** `value` as JSON text, with the raw number tokens written as they are. */
export function jsonText(value: unknown): string {
  const json = JSON.stringify(value) ?? 'undefined';
  return json.includes('\\u0000raw:') ? json.replace(RAW_TOKEN, '$1') : json;
}

/**
 * `value` as it goes in a URL (a path parameter, a query value): strings as they are, the rest as
 * JSON. A URL carries UTF-8, which has no lone surrogate: one arrives as U+FFFD, so it is one here.
 */
export function urlText(value: unknown): string {
  const text =
    typeof value !== 'string'
      ? jsonText(value)
      : value.startsWith(RAW_MARK)
        ? value.slice(RAW_MARK.length, -1)
        : value;
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** `{"a":{"a":…}}` or `[[…]]`, `depth` levels: a parser or a validator that recurses meets its limit. */
const nested = (depth: number, objects: boolean): unknown => {
  let value: unknown = 0;
  for (let level = 0; level < depth; level += 1) value = objects ? { a: value } : [value];
  return value;
};

/** An object with `key` as an own property, even `__proto__` (an assignment would set the prototype). */
export function withKey(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const copy = { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Keys that mean something to JavaScript's objects, or to our own rows. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];
const EXTRA_KEYS = [...PROTOTYPE_KEYS, 'isAdmin', 'is_admin', 'id', 'userId', 'type', ''];

/**
 * Characters that text handling trips on — NUL (PostgreSQL's text cannot hold it), lone
 * surrogates, direction and line controls, quotes, escapes — among plain ones: any code point
 * at random would almost never be one of them.
 */
const ODD_CHARACTER = fc.oneof(
  fc.constantFrom('\u0000', '\u0001', '\u001b', '\ud800', '\udfff', '\u202e', '\u2028', '\ufeff', '\uffff'),
  fc.constantFrom('"', "'", '\\', '%', '%00', '\r\n', '\t', '<', '&', '😀', 'é', 'ǅ'),
  fc.string({ minLength: 1, maxLength: 1 }),
);

/** Small JSON values, cheap to make (fast-check's jsonValue costs ten times more). */
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 12 }),
);
const smallJson = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }),
);

/** A value no schema of ours expects where it lands: every JSON type, at its edges, and worse. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, '', ' ', '0', 'null', 'undefined', '[]', '{}'),
  fc.constantFrom(...PROTOTYPE_KEYS),
  // NaN and the infinities cannot be written in JSON: 1e999 parses as Infinity, -0 stays -0.
  fc
    .constantFrom('NaN', 'Infinity', '-Infinity', '1e999', '-1e999', '-0', '1e-400', '9007199254740993')
    .map(raw),
  fc.constantFrom(
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    2 ** 31,
    -(2 ** 31) - 1,
    0.5,
    1e308,
    5e-324,
  ),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 40 }),
  // Any code point, lone surrogates included (JSON escapes them; JSON.parse gives them back).
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: ODD_CHARACTER, maxLength: 20 }),
  fc.integer({ min: 500, max: 3_000 }).map((length) => 'x'.repeat(length)),
  fc
    .tuple(fc.integer({ min: 2, max: 1_200 }), fc.boolean())
    .map(([depth, objects]) => nested(depth, objects)),
  fc.constantFrom(
    JSON.parse('{"__proto__":{"isAdmin":true,"type":"drive"}}') as unknown,
    { constructor: { prototype: { isAdmin: true } } },
    JSON.parse('{"__proto__":null}') as unknown,
  ),
  smallJson,
);

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));

function integerIn(schema: JsonSchema): fc.Arbitrary<number> {
  const low = schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1e6 : schema.exclusiveMinimum + 1);
  const high = schema.maximum ?? (schema.exclusiveMaximum === undefined ? 1e6 : schema.exclusiveMaximum - 1);
  // Its edges (2³¹−1 for an id), and anything between within 32 bits.
  const inner = fc.integer({ min: clamp(low, INT32.min, INT32.max), max: clamp(high, INT32.min, INT32.max) });
  return low <= high ? fc.oneof(fc.constantFrom(low, high), inner) : fc.constant(low);
}

function numberIn(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  const inner = fc.double({
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
    minExcluded: schema.exclusiveMinimum !== undefined,
    maxExcluded: schema.exclusiveMaximum !== undefined,
    noNaN: true,
    noDefaultInfinity: true,
  });
  const edges = [schema.minimum, schema.maximum, 0].filter((n): n is number => n !== undefined);
  return fc.oneof(fc.constantFrom(...edges), inner);
}

/** Strings a pattern accepts, when fast-check can write them; any string otherwise (zod decides). */
function patternString(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    // A pattern fast-check cannot read (a lookahead): strings that often match ours anyway.
    return fc.oneof(
      fc.constantFrom('/', '/a.png', 'https://example.test/a', 'a'),
      fc.string({ maxLength: 20 }),
    );
  }
}

function stringIn(schema: JsonSchema): fc.Arbitrary<string> {
  const byFormat: Record<string, fc.Arbitrary<string>> = {
    email: fc.emailAddress(),
    'date-time': fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString()),
    uri: fc.webUrl(),
    url: fc.webUrl(),
    uuid: fc.uuid(),
  };
  const formatted = schema.format ? byFormat[schema.format] : undefined;
  if (formatted) return formatted;
  if (schema.pattern) return patternString(schema.pattern);
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  const plain = fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: ODD_CHARACTER, minLength, maxLength }) },
  );
  // The longest string allowed: its edge.
  return schema.maxLength === undefined ? plain : fc.oneof(plain, fc.constant('a'.repeat(schema.maxLength)));
}

/** Values the schema describes (or close to it: zod still decides what it accepts). */
export function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map(arbitraryOf));
  if (schema.allOf?.[0]) return arbitraryOf(schema.allOf[0]);
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type })));
  switch (schema.type) {
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, property]) => [key, arbitraryOf(property)]),
      );
      return fc.record(properties, { requiredKeys: schema.required ?? [] });
    }
    case 'array':
      return fc.array(schema.items ? arbitraryOf(schema.items) : smallJson, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'string':
      return stringIn(schema);
    case 'integer':
      return integerIn(schema);
    case 'number':
      return numberIn(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return smallJson;
  }
}

type Path = readonly (string | number)[];

/** The places inside a value (the value itself first), down to four levels: where a change lands. */
function pathsOf(value: unknown, path: Path = [], into: Path[] = []): Path[] {
  into.push(path);
  if (path.length >= 4 || into.length >= 40 || value === null || typeof value !== 'object') return into;
  for (const [key, child] of Object.entries(value))
    pathsOf(child, [...path, Array.isArray(value) ? Number(key) : key], into);
  return into;
}

/** `value` with the place at `path` changed by `change` (copies along the way; `undefined` removes it). */
function changedAt(value: unknown, path: Path, change: (old: unknown) => unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return change(value);
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = changedAt(copy[head as number], rest, change);
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const record = value as Record<string, unknown>;
  const next = changedAt(record[head], rest, change);
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(record))
    if (key !== head) Object.assign(copy, withKey({}, key, child));
  return next === undefined ? copy : withKey(copy, String(head), next);
}

/** One change to a value: at `pick` (an index into its places), of one kind. */
type Mutation =
  | { kind: 'set'; pick: number; value: unknown }
  | { kind: 'drop'; pick: number }
  | { kind: 'add'; pick: number; key: string; value: unknown }
  | { kind: 'nest'; pick: number; depth: number }
  | { kind: 'replace'; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: hostileValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      pick: fc.nat(),
      key: fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 10 })),
      value: hostileValue,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nest' as const),
      pick: fc.nat(),
      depth: fc.integer({ min: 1, max: 300 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), value: hostileValue }) },
);

function applyMutation(value: unknown, change: Mutation): unknown {
  if (change.kind === 'replace') return change.value;
  const paths = pathsOf(value);
  const path = paths[change.pick % paths.length] ?? [];
  switch (change.kind) {
    case 'set':
      return changedAt(value, path, () => change.value);
    case 'drop':
      // Removing the value itself leaves nothing: an empty object instead.
      return path.length === 0 ? {} : changedAt(value, path, () => undefined);
    case 'nest':
      return changedAt(value, path, (old) => {
        let wrapped = old;
        for (let level = 0; level < change.depth; level += 1) wrapped = [wrapped];
        return wrapped;
      });
    case 'add':
      return changedAt(value, path, (old) =>
        old !== null && typeof old === 'object' && !Array.isArray(old)
          ? withKey(old as Record<string, unknown>, change.key, change.value)
          : withKey({}, change.key, change.value),
      );
  }
}

/** `valid`'s values after one to three hostile changes (which may, by chance, leave one valid). */
export const mutated = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([value, changes]) => changes.reduce(applyMutation, value));

/**
 * Accepted values written oddly: the prototype keys and unknown keys the schema drops, added to a
 * valid object (an accepted message or body must be handled as what zod made of it).
 */
export const withOddKeys = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      valid,
      fc.array(fc.tuple(fc.constantFrom(...EXTRA_KEYS.filter((key) => key !== 'type')), hostileValue), {
        maxLength: 3,
      }),
    )
    .map(([value, extra]) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? extra.reduce((object, [key, odd]) => withKey(object, key, odd), value as Record<string, unknown>)
        : value,
    );
