/**
 * Ids past the database's integer columns (issue 23 point 8): every route with an id in its path,
 * walked from the served OpenAPI document, answers 400 naming the field, never a 5xx; the sockets
 * do the same with theirs; and no database error's values reach the log.
 */
import { MAX_ID } from '@telerace/protocol';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authHeader, buildAdmin, buildUser, tokenFor } from '../test/factories.js';
import { eventsUrl, openSocket, originOf, refusedStatus, useListeningTestApp } from '../test/sockets.js';

/** Past 2³¹−1 (PostgreSQL `integer`), and past it by far. */
const HOSTILE_IDS = [String(MAX_ID + 1), '99999999999'];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `{id}`, `{carId}`…: a path parameter that names a row. */
const ID_PARAMETER = /\{(id|\w+Id)\}/;
const ID_PARAMETERS = new RegExp(ID_PARAMETER.source, 'g');

describe('ids past the database’s integers', () => {
  const testApp = useListeningTestApp();

  it('every route of the OpenAPI document with an id in its path answers 400 naming it', async () => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    const document = (await app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
    };
    const calls = Object.entries(document.paths)
      .filter(([path]) => ID_PARAMETER.test(path))
      .flatMap(([path, item]) =>
        METHODS.filter((method) => item[method]).map((method) => ({ path, method })),
      );
    // The document does list them: cars, members, races, raffles… (a walk over nothing proves nothing).
    expect(calls.length).toBeGreaterThanOrEqual(15);

    const wrong: string[] = [];
    for (const { path, method } of calls) {
      const field = ID_PARAMETER.exec(path)?.[1];
      for (const id of HOSTILE_IDS) {
        const url = path.replace(ID_PARAMETERS, id);
        const response = await app.inject({
          method: method.toUpperCase() as Uppercase<typeof method>,
          url,
          headers,
          ...(method === 'get' || method === 'delete' ? {} : { payload: {} }),
        });
        const body = response.json() as { error?: string; errorKey?: string };
        const named = response.statusCode === 400 && body.errorKey === 'errors.validation';
        if (!named || !body.error?.includes(`params.${field}`))
          wrong.push(`${method.toUpperCase()} ${url} → ${response.statusCode} ${response.body}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(testApp.logText()).not.toContain('Failed query');
  });

  it('the largest id is an id: looked for, not refused', async () => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    for (const url of [`/api/raffles/${MAX_ID}`, `/api/races/${MAX_ID}`, `/api/cars/${MAX_ID}/status`]) {
      expect((await app.inject({ url, headers })).statusCode, url).toBe(404);
    }
    const rotated = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${MAX_ID}/rotate-secret`,
      headers,
    });
    expect(rotated.statusCode).toBe(404);
  });

  it('the event socket refuses join_lobby with a car id past the integers, naming the field', async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    const socket = await openSocket(eventsUrl(host, await tokenFor(app, member)), originOf(app));
    try {
      for (const carId of HOSTILE_IDS) {
        socket.send({ type: 'join_lobby', carId: Number(carId) });
        const answer = await socket.next((message) => message.type === 'error');
        expect(answer).toMatchObject({
          errorKey: 'errors.validation',
          error: expect.stringContaining('carId'),
        });
      }
    } finally {
      socket.ws.close();
    }
    expect(testApp.logText()).not.toContain('Failed query');
  });

  it('the control socket refuses a car id past the integers before the upgrade (400)', async () => {
    const { host } = testApp;
    for (const car of HOSTILE_IDS) {
      const status = await refusedStatus(
        openSocket(`ws://${host}/rcsocket?type=car&car=${car}`, { authorization: 'Bearer not-a-secret' }),
      );
      expect(status, `car=${car}`).toBe(400);
    }
  });
});

describe('database errors in the log', () => {
  const testApp = useListeningTestApp();

  it('a failed query is logged as its code, constraint and table: no parameters, no values, no SQL', async () => {
    const { app } = testApp;
    const db = app.database.db;
    const marker = `leak-${Math.random().toString(36).slice(2, 10)}`;
    const constraint = `bio_check_${Math.random().toString(36).slice(2, 10)}`;
    const member = await buildUser(db);
    // A rule the application does not know, so a plain profile update fails inside PostgreSQL with
    // a check violation whose detail is the whole row (e-mail, password hash…).
    await db.execute(sql.raw(`ALTER TABLE users ADD CONSTRAINT ${constraint} CHECK (bio <> '${marker}')`));
    try {
      const response = await app.inject({
        method: 'PATCH',
        url: '/api/me',
        headers: await authHeader(app, member),
        payload: { bio: marker, avatar_url: '' },
      });
      expect(response.statusCode).toBe(500);
    } finally {
      await db.execute(sql.raw(`ALTER TABLE users DROP CONSTRAINT ${constraint}`));
    }
    const line = testApp.logLines().find((entry) => entry.msg === 'request failed');
    expect(line?.err).toMatchObject({
      type: 'FailedQuery',
      message: 'database query failed',
      code: '23514',
      table: 'users',
      constraint,
    });
    const log = testApp.logText();
    expect(log).not.toContain(marker);
    expect(log).not.toContain(member.email as string);
    expect(log).not.toContain(member.passwordHash as string);
    expect(log).not.toContain('Failed query');
    expect(log).not.toContain('params');
    expect(log).not.toContain('Failing row contains');
  });

  it('however the error is logged: as the first argument, as a field, or as the cause of another', async () => {
    const { app } = testApp;
    const marker = `leak-${Math.random().toString(36).slice(2, 10)}`;
    // PostgreSQL quotes the value in its message: invalid input syntax for type integer: "leak-…".
    const failed = await app.database.db.execute(sql`select ${marker}::int`).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    const error = failed as Error;
    app.log.error(error);
    app.log.warn({ err: error }, 'as a field');
    app.log.error({ err: new Error('saving the lap failed', { cause: error }) }, 'as a cause');
    app.log.error({ err: new Error('not a query') }, 'any other error');
    const lines = testApp.logLines().slice(-4);
    expect(lines.slice(0, 3).map((line) => line.err)).toEqual(
      Array(3).fill(expect.objectContaining({ type: 'FailedQuery', code: '22P02' })),
    );
    expect(lines[0]?.msg).toBe('database query failed');
    // Every other error is logged as before: its message and stack.
    expect(lines[3]?.err).toMatchObject({ type: 'Error', message: 'not a query', stack: expect.any(String) });
    expect(testApp.logText()).not.toContain(marker);
  });
});
