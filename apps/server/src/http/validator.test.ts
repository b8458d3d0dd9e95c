/**
 * Text PostgreSQL cannot store is refused at the boundary (found by api-fuzz.test.ts): the schemas
 * accepted a NUL character or an unpaired surrogate, the query failed and the call answered 500 —
 * here, the cases the fuzz found, each answered 400 naming its field with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { authHeader, buildAdmin, buildUser } from '../test/factories.js';
import { unstorableText } from './validator.js';

describe('text that PostgreSQL cannot store', () => {
  let testApp: StartedTestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('is answered 400 naming its field, and nothing is stored', async () => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    const member = await buildUser(app.database.db);
    const opened = await app.inject({
      method: 'POST',
      url: '/api/admin/race/start-raffle',
      headers,
      payload: { racers: 1 },
    });
    expect(opened.statusCode, opened.body).toBe(200);

    const refusals = [
      ['POST', '/api/admin/cars', { name: 'car\u0000', image_url: null }, 'body.name'],
      [
        'POST',
        '/api/admin/race/raffle-entries',
        { platform: 'twitch', platformUserId: '42', displayName: 'a\u0000b' },
        'body.displayName',
      ],
      [
        'POST',
        `/api/admin/users/${member.id}/adjust-tickets`,
        { amount: 5, requestId: 'request-\u0000-1' },
        'body.requestId',
      ],
      ['PATCH', '/api/me', { bio: 'a\u0000b', avatar_url: '' }, 'body.bio'],
    ] as const;
    for (const [method, url, payload, field] of refusals) {
      const response = await app.inject({ method, url, headers, payload });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(400);
      expect(response.json()).toEqual({
        error: `${field}: must not contain the NUL character`,
        errorKey: 'errors.validation',
      });
    }
    const cars = await app.inject({ url: '/api/admin/cars', headers });
    expect(cars.json()).toEqual([]);
    const raffle = await app.inject({ url: '/api/admin/raffle', headers });
    expect((raffle.json() as { raffle: { entryCount: number } }).raffle.entryCount).toBe(0);
    const users = await app.inject({ url: '/api/admin/users', headers });
    const adjusted = (users.json() as { users: { id: number; ticket_adjustment: number }[] }).users;
    expect(adjusted.find((user) => user.id === member.id)?.ticket_adjustment).toBe(0);
  });

  it('other control characters and paired surrogates are text: stored', async () => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    const bio = 'a\u0001b \ud83d\ude00 \u202e';
    const response = await app.inject({
      method: 'PATCH',
      url: '/api/me',
      headers,
      payload: { bio, avatar_url: '' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((await app.inject({ url: '/api/me', headers })).json()).toMatchObject({ user: { bio } });
  });

  it('unstorableText names the place of the first such text, however deep', () => {
    expect(unstorableText({ a: 'x', b: [{ c: 'y' }, { d: 'z\u0000' }] })).toEqual({
      pointer: '/b/1/d',
      message: 'must not contain the NUL character',
    });
    expect(unstorableText({ a: '\ud800' })?.pointer).toBe('/a');
    expect(unstorableText({ a: 'x\udc00' })?.pointer).toBe('/a');
    expect(unstorableText({ a: '\ud83d\ude00', b: [1, null, true] })).toBeNull();
  });
});
