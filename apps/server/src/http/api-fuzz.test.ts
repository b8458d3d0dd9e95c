/**
 * Property-based fuzzing of every zod boundary of the REST API (issue 26, item 8). The routes are
 * the operations of the served OpenAPI document; their zod schemas are read from the routes
 * themselves (an onRoute hook added through Fastify's `fastify.initialization` diagnostics
 * channel, before the app registers anything), so a new route is fuzzed the day it is added.
 *
 * - Each schema (params, query, body) on its own, through the routes' validator (zod, then the
 *   text rule of validator.ts): values generated from it, then mutated (wrong types, missing and
 *   extra fields, huge strings, deep nesting, NaN/Infinity/-0, prototype keys): it never throws,
 *   and what it lets through is plain data (no NaN, no infinity, no prototype key).
 * - Each route through the real app, as the member or admin it is for: a refused input is
 *   answered 400 with the ErrorBody (`errors.validation`) and changes nothing — no row of any
 *   table, no domain fact; an accepted input, written oddly, is never answered 5xx, and every
 *   4xx is an ErrorBody. Nothing is logged as an error.
 *
 * HTTP is the slow part (a request costs what a hundred schema checks do): in CI each schema gets
 * 500 direct checks and each route 20 refused and 10 accepted requests per test project (the time
 * budget; the projects' seeds differ); FUZZ_RUNS=10000 gives 10,000 checks per schema and 200
 * requests of each kind per route.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ERROR_KEYS, ErrorBody } from '@telerace/protocol';
import { DOMAIN_EVENTS, type DomainEventName } from '@telerace/protocol/events';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { authHeader, buildAdmin, buildUser } from '../test/factories.js';
import {
  arbitraryOf,
  fuzzCount,
  fuzzParameters,
  hostileValue,
  jsonSchemaOf,
  jsonText,
  mutated,
  PROTOTYPE_KEYS,
  urlText,
  withOddKeys,
} from '../test/fuzz.js';
import { validatorCompiler } from './validator.js';

/** Direct checks per schema, and requests per route (refused, then accepted). */
const PER_SCHEMA = fuzzCount(500);
const REFUSED_PER_ROUTE = fuzzCount(20, 0.02);
const ACCEPTED_PER_ROUTE = fuzzCount(10, 0.02);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const BODY_METHODS = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The parts of a request a route validates, as the route declares them (zod). */
interface Parts {
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
}

interface Operation {
  method: Method;
  /** As the document writes it: `/api/cars/{id}/status`. */
  path: string;
  access: 'member' | 'member-before-terms' | 'admin' | 'public';
  parts: Parts;
  /** Whether the hook saw the route (else its schemas are unknown here). */
  registered: boolean;
}

/** One request as generated: the path's parameters, the query's pairs, the body's text. */
interface Call {
  params: Record<string, string>;
  query: [string, string][];
  body: string | undefined;
}

const nameOf = (operation: Operation) => `${operation.method} ${operation.path}`;

const isZod = (schema: unknown): schema is z.ZodType =>
  typeof (schema as { safeParse?: unknown } | undefined)?.safeParse === 'function';

/** The zod schemas of every route the app registers, caught as it registers them. */
function routesOf(start: () => Promise<StartedTestApp>): Promise<[StartedTestApp, RouteOptions[]]> {
  const routes: RouteOptions[] = [];
  const collect = (message: unknown) =>
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (route) => {
      routes.push(route);
    });
  subscribe('fastify.initialization', collect);
  return start()
    .then((testApp): [StartedTestApp, RouteOptions[]] => [testApp, routes])
    .finally(() => unsubscribe('fastify.initialization', collect));
}

/** The query as Fastify reads it: a repeated key is an array of its values. */
function queryObject(pairs: [string, string][]): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of pairs) {
    const before = Object.hasOwn(query, key) ? query[key] : undefined;
    const next = before === undefined ? value : [before, value].flat();
    Object.defineProperty(query, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return query;
}

/** The routes' validator (zod, then the text rule) for one schema, as Fastify compiles it. */
const validatorOf = (schema: z.ZodType) => {
  const validate = validatorCompiler({ schema, method: 'POST', url: '/', httpPart: 'body' });
  return (data: unknown) => validate(data) as { error?: unknown; value?: unknown };
};
const validators = new WeakMap<z.ZodType, ReturnType<typeof validatorOf>>();
function validated(schema: z.ZodType, data: unknown) {
  const validate = validators.get(schema) ?? validatorOf(schema);
  validators.set(schema, validate);
  return validate(data);
}

/** Whether the route's validator refuses the call (text that is not JSON is refused by the body parser). */
function refuses({ parts, method }: Operation, call: Call): boolean {
  if (parts.params && validated(parts.params, call.params).error) return true;
  if (parts.querystring && validated(parts.querystring, queryObject(call.query)).error) return true;
  if (!BODY_METHODS.has(method) || call.body === undefined) return false;
  let body: unknown;
  try {
    body = JSON.parse(call.body);
  } catch {
    return true;
  }
  return parts.body !== undefined && Boolean(validated(parts.body, body).error);
}

const parameterNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

/**
 * A path parameter that reaches the route: a segment of at most 100 characters (find-my-way's
 * limit), not empty, not `.` or `..` (a URL resolves those away) — anything else is another
 * route, or none: a 404, not a refusal.
 */
const routable = (value: string) =>
  value.length > 0 && value !== '.' && value !== '..' && encodeURIComponent(value).length <= 100;

/** Valid values of an object schema's fields, as URL text. */
function urlFields(schema: z.ZodType | undefined, names?: string[]): fc.Arbitrary<Record<string, string>> {
  const json = schema ? jsonSchemaOf(schema) : {};
  const fields = names ?? Object.keys(json.properties ?? {});
  const arbitraries = Object.fromEntries(
    fields.map((name) => [name, arbitraryOf(json.properties?.[name] ?? {}).map(urlText)]),
  );
  return fc.record(arbitraries, { requiredKeys: names ?? json.required ?? [] }) as fc.Arbitrary<
    Record<string, string>
  >;
}

/** Text that is not JSON, or JSON of no object. */
const notJsonBody = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'undefined', 'NaN', "{'a':1}", '{"a":', '[1]', 'null', '"text"', '1e999'),
);

/** Whether some input of the route can be refused: a part with a schema, or a body (not JSON). */
const refusable = (operation: Operation) =>
  Object.keys(operation.parts).length > 0 || BODY_METHODS.has(operation.method);

/** A generated value as a JSON body brings it (NaN written raw is no JSON: then the value itself). */
function asReceived(value: unknown): unknown {
  try {
    return JSON.parse(jsonText(value));
  } catch {
    return value;
  }
}

/** The calls fuzzed on one route: `refused` breaks at least one part, `accepted` keeps them valid. */
function callsOf(operation: Operation) {
  const { parts, method, path } = operation;
  const names = parameterNames(path);
  const validParams = urlFields(parts.params, names);
  const validQuery = urlFields(parts.querystring).map((fields) => Object.entries(fields));
  const hasBody = BODY_METHODS.has(method);
  const validBody = parts.body ? arbitraryOf(jsonSchemaOf(parts.body)) : fc.constant(undefined);

  const hostileText = hostileValue.map(urlText);
  const brokenParams = fc
    .tuple(validParams, fc.constantFrom(...(names.length > 0 ? names : [''])), hostileText)
    .map(([params, name, value]) => (name ? { ...params, [name]: value } : params));
  const brokenQuery = fc.oneof(
    fc
      .tuple(
        validQuery,
        fc.array(
          fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), hostileText),
          { minLength: 1, maxLength: 3 },
        ),
      )
      .map(([pairs, extra]) => [...pairs, ...extra]),
    // A known key with a hostile value, or twice (Fastify then reads an array).
    fc.tuple(validQuery, hostileText, fc.boolean()).map(([pairs, value, twice]) => {
      const [first] = pairs;
      if (!first) return pairs;
      return twice ? [...pairs, first] : [[first[0], value] as [string, string], ...pairs.slice(1)];
    }),
  );
  const brokenBody = fc.oneof(
    { weight: 4, arbitrary: mutated(validBody).map(jsonText) },
    { weight: 1, arbitrary: notJsonBody },
  );
  const valid: fc.Arbitrary<Call> = fc.record({
    params: validParams,
    query: validQuery,
    body: hasBody
      ? withOddKeys(validBody).map((body) => (body === undefined ? undefined : jsonText(body)))
      : fc.constant(undefined),
  });
  const broken: fc.Arbitrary<Call> = valid.chain((call) =>
    fc.oneof(
      brokenParams.map((params) => ({ ...call, params })),
      brokenQuery.map((query) => ({ ...call, query })),
      ...(hasBody ? [brokenBody.map((body) => ({ ...call, body }))] : []),
    ),
  );
  const callable = (call: Call) => Object.values(call.params).every(routable);
  return {
    refused: broken.filter((call) => callable(call) && refuses(operation, call)),
    accepted: valid.filter((call) => callable(call) && !refuses(operation, call)),
  };
}

/** Every row of every table, hashed: what a refused request must leave as it was. */
async function databaseDigest(app: FastifyInstance): Promise<Record<string, string>> {
  const db = app.database.db;
  const listed = (await db.execute(
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  )) as unknown as { rows: { name: string }[] };
  const selects = listed.rows.map(
    ({ name }) =>
      `select '${name}' as name, count(*)::text || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as digest from "${name}" t`,
  );
  const result = (await db.execute(sql.raw(selects.join(' union all ')))) as unknown as {
    rows: { name: string; digest: string }[];
  };
  return Object.fromEntries(result.rows.map(({ name, digest }) => [name, digest]));
}

describe('REST API fuzzing', () => {
  let testApp: StartedTestApp;
  let operations: Operation[];
  const facts: DomainEventName[] = [];
  let address = 0;

  beforeAll(async () => {
    let routes: RouteOptions[];
    // The API's per-client limit would answer 429 before the input is read; each request also
    // comes from an address of its own, for the per-route limits (connect, login…).
    [testApp, routes] = await routesOf(() =>
      startTestApp({}, { rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } }),
    );
    const document = (await testApp.app.inject('/api/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((lower): Operation => {
        const method = lower.toUpperCase() as Method;
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        const route = routes.find(
          (candidate) => candidate.url === url && [candidate.method].flat().includes(method),
        );
        const schema = (route?.schema ?? {}) as Record<string, unknown>;
        const parts: Parts = {};
        for (const part of ['params', 'querystring', 'body'] as const)
          if (isZod(schema[part])) parts[part] = schema[part];
        const access = (route?.config as { access?: Operation['access'] } | undefined)?.access ?? 'public';
        return { method, path, access, parts, registered: route !== undefined };
      }),
    );
    for (const name of Object.keys(DOMAIN_EVENTS) as DomainEventName[])
      testApp.app.events.on(name, () => facts.push(name));
  });
  afterAll(() => testApp?.close());

  it('reads the schemas of every operation of the document', () => {
    expect(operations.filter((operation) => !operation.registered).map(nameOf)).toEqual([]);
    // A walk over nothing proves nothing: the document lists sixty-odd operations, most with input.
    expect(operations.length).toBeGreaterThanOrEqual(60);
    expect(
      operations.filter((operation) => Object.keys(operation.parts).length > 0).length,
    ).toBeGreaterThanOrEqual(40);
  });

  it('every schema, through the routes’ validator: never a throw, only plain data let through', () => {
    const schemas = new Set(operations.flatMap(({ parts }) => Object.values(parts)));
    const impure: string[] = [];
    /** NaN, an infinity, or a prototype key anywhere in what the validator let through. */
    const plain = (value: unknown): boolean => {
      if (typeof value === 'number') return Number.isFinite(value);
      if (value === null || typeof value !== 'object') return true;
      if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return false;
      return Object.entries(value).every(([key, child]) => key !== '__proto__' && plain(child));
    };
    for (const schema of schemas) {
      const json = jsonSchemaOf(schema);
      fc.assert(
        fc.property(fc.oneof(mutated(arbitraryOf(json)), withOddKeys(arbitraryOf(json))), (value) => {
          const result = validated(schema, asReceived(value));
          if (!result.error && !plain(result.value)) impure.push(jsonText(value));
        }),
        fuzzParameters(PER_SCHEMA),
      );
    }
    expect(impure).toEqual([]);
  });

  async function call(operation: Operation, request: Call, headers: Record<string, string>) {
    address += 1;
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(request.params[name] ?? ''),
    );
    const query = new URLSearchParams(request.query).toString();
    const hasBody = BODY_METHODS.has(operation.method) && request.body !== undefined;
    return testApp.app.inject({
      method: operation.method,
      url: query ? `${path}?${query}` : path,
      headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      ...(hasBody ? { payload: request.body } : {}),
      remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    });
  }

  /** The caller the route is for: a new member, or admin, each time (an accepted call may ban or delete one). */
  async function callerOf(operation: Operation): Promise<Record<string, string>> {
    const { app } = testApp;
    if (operation.access === 'public') return {};
    const build = operation.access === 'admin' ? buildAdmin : buildUser;
    return authHeader(app, await build(app.database.db));
  }

  it('every route: a refused input is answered 400 with the ErrorBody and changes nothing', async () => {
    const { app } = testApp;
    const wrong: string[] = [];
    const factsOf: Record<string, DomainEventName[]> = {};
    // One look at the database around them all (a digest of every table costs more than a
    // route's requests); the facts, free to watch, are told apart by route.
    // A GET without schemas has nothing to refuse: it reads no input.
    const refusing = operations.filter(refusable);
    const callers = await Promise.all(refusing.map(callerOf));
    const rows = await databaseDigest(app);
    for (const [index, operation] of refusing.entries()) {
      const { refused } = callsOf(operation);
      const headers = callers[index] ?? {};
      const factsBefore = facts.length;
      await fc.assert(
        fc.asyncProperty(refused, async (request) => {
          const response = await call(operation, request, headers);
          const body = ErrorBody.safeParse(response.json());
          if (response.statusCode !== 400 || !body.success || body.data.errorKey !== ERROR_KEYS.validation)
            wrong.push(
              `${nameOf(operation)} ${jsonText(request).slice(0, 300)} → ${response.statusCode} ${response.body.slice(0, 200)}`,
            );
        }),
        fuzzParameters(REFUSED_PER_ROUTE),
      );
      if (facts.length > factsBefore) factsOf[nameOf(operation)] = facts.slice(factsBefore);
    }
    expect(wrong).toEqual([]);
    expect(factsOf).toEqual({});
    expect(await databaseDigest(app)).toEqual(rows);
  });

  it('every route: an accepted input is never answered 5xx, and each refusal is an ErrorBody', async () => {
    const wrong: string[] = [];
    const statuses: Record<number, number> = {};
    for (const operation of operations) {
      const { accepted } = callsOf(operation);
      const headers = await callerOf(operation);
      await fc.assert(
        fc.asyncProperty(accepted, async (request) => {
          const response = await call(operation, request, headers);
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
          const isError = response.statusCode >= 400;
          if (response.statusCode >= 500 || (isError && !ErrorBody.safeParse(response.json()).success))
            wrong.push(
              `${nameOf(operation)} ${jsonText(request).slice(0, 300)} → ${response.statusCode} ${response.body.slice(0, 200)}`,
            );
        }),
        fuzzParameters(ACCEPTED_PER_ROUTE),
      );
    }
    expect(wrong).toEqual([]);
    // The accepted calls reach the handlers: most answer 2xx (404 for ids nobody has, 409…).
    const answered = Object.values(statuses).reduce((sum, count) => sum + count, 0);
    const succeeded = Object.entries(statuses)
      .filter(([status]) => status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, 0);
    expect(succeeded / answered, JSON.stringify(statuses)).toBeGreaterThan(0.3);
  });

  it('the app still answers, and nothing was logged as an error', async () => {
    expect((await testApp.app.inject('/api/health')).statusCode).toBe(200);
    const errors = testApp.logLines().filter((line) => Number(line.level) >= 50);
    expect(
      errors.map((line) => ({
        msg: line.msg,
        url: (line.req as { url?: string })?.url,
        err: (line.err as { message?: string })?.message,
      })),
    ).toEqual([]);
  });
});
