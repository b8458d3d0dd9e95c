/**
 * Every route reads the same way: who is calling is decided before what they sent is read. A
 * caller who may not use a route learns nothing about its input (no 400 naming the fields), only
 * 401 (not signed in) or 403 (not an admin). Walks every operation of the served OpenAPI document,
 * so a new route is checked the day it is added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { authHeader, buildAdmin, buildUser } from '../test/factories.js';

interface Operation {
  security?: Record<string, string[]>[];
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/** Operations anyone may call: signing in and up, public pages, health. Everything else needs a member. */
const PUBLIC = new Set([
  'GET /api/health',
  'GET /api/ready',
  'GET /api/public-config',
  'POST /api/signup',
  'POST /api/login',
  'POST /api/refresh-token',
  'POST /api/logout',
  'POST /api/forgot-password',
  'POST /api/reset-password',
  'POST /api/auth/exchange',
  // Browser navigations of social sign-in; /connect reads the member's token from its query.
  'GET /api/auth/{platform}',
  'GET /api/auth/{platform}/callback',
  'GET /api/connect/{platform}',
  'GET /api/leaderboards/all-time',
  'GET /api/leaderboards/season/{season}',
  'GET /api/races/{id}',
  'GET /api/raffles/current',
  'GET /api/raffles/{id}',
  'GET /api/raffles/{id}/entries',
  'GET /api/raffles/{id}/record',
]);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The operation's URL with every part invalid: path parameters, a query, and (below) a body. */
const invalidUrl = (path: string): string =>
  `${path.replace(/\{[^}]+\}/g, 'not-an-id')}?page=nope&limit=nope&season=nope`;

describe('authentication comes before validation, on every route', () => {
  let testApp: StartedTestApp;
  let operations: { method: string; path: string; operation: Operation }[];
  let memberHeaders: { authorization: string };
  let adminHeaders: { authorization: string };

  beforeAll(async () => {
    testApp = await startTestApp();
    const document = (await testApp.app.inject('/api/openapi.json')).json() as OpenApi;
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operation,
      })),
    );
    const db = testApp.app.database.db;
    memberHeaders = await authHeader(testApp.app, await buildUser(db));
    adminHeaders = await authHeader(testApp.app, await buildAdmin(db));
  });
  afterAll(() => testApp.close());

  /** The operation called with invalid input everywhere (a JSON array is no request body). */
  const callInvalid = (method: string, path: string, headers: Record<string, string> = {}) =>
    testApp.app.inject({
      method: method as 'GET',
      url: invalidUrl(path),
      headers: { ...headers, ...(BODY_METHODS.has(method) ? { 'content-type': 'application/json' } : {}) },
      ...(BODY_METHODS.has(method) ? { payload: '[1]' } : {}),
    });

  /** `METHOD path status errorKey`: one line per answer, so a failure lists every wrong route. */
  const answerLine = (method: string, path: string, response: Awaited<ReturnType<typeof callInvalid>>) => {
    const json = String(response.headers['content-type']).startsWith('application/json');
    const errorKey = json ? (response.json() as { errorKey?: string }).errorKey : response.body.slice(0, 40);
    return `${method} ${path} ${response.statusCode} ${errorKey}`;
  };

  const schemesOf = (operation: Operation): string[] =>
    (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));

  it('documents who may call each operation: public ones are the listed few', () => {
    expect(operations.length).toBeGreaterThan(PUBLIC.size + 20);
    const open = operations
      .filter(({ operation }) => schemesOf(operation).length === 0)
      .map(({ method, path }) => `${method} ${path}`);
    expect(new Set(open)).toEqual(PUBLIC);
    for (const { operation } of operations) {
      expect(['member', 'admin']).toEqual(expect.arrayContaining(schemesOf(operation)));
    }
  });

  it('answers 401 to an anonymous caller whatever they sent, never a 400 naming the fields', async () => {
    const refused: string[] = [];
    for (const { method, path } of operations) {
      if (PUBLIC.has(`${method} ${path}`)) continue;
      const response = await callInvalid(method, path);
      refused.push(answerLine(method, path, response));
    }
    expect(refused.length).toBeGreaterThan(20);
    expect(refused.filter((line) => !line.endsWith(' 401 errors.unauthorized'))).toEqual([]);
  });

  it('answers 403 to a member on an admin operation whatever they sent', async () => {
    const answers: string[] = [];
    for (const { method, path, operation } of operations) {
      if (!schemesOf(operation).includes('admin')) continue;
      const response = await callInvalid(method, path, memberHeaders);
      answers.push(answerLine(method, path, response));
    }
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((line) => !line.endsWith(' 403 errors.forbidden'))).toEqual([]);
  });

  it('lets the right caller through to validation: a member on member operations, an admin on admin ones', async () => {
    for (const { method, path, operation } of operations) {
      const schemes = schemesOf(operation);
      if (schemes.length === 0) continue;
      const headers = schemes.includes('admin') ? adminHeaders : memberHeaders;
      const response = await callInvalid(method, path, headers);
      expect([401, 403], `${method} ${path}`).not.toContain(response.statusCode);
    }
  });
});
