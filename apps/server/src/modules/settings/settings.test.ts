import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildAdmin } from '../../test/factories.js';

// A fresh server (and database) per test: each starts from the defaults.
let testApp: Awaited<ReturnType<typeof startTestApp>>;
beforeEach(async () => {
  testApp = await startTestApp();
});
afterEach(() => testApp.close());

const DEFAULTS = {
  car_session_duration_minutes: 10,
  race_countdown_seconds: 5,
  race_length_minutes: 3,
  min_lap_time_seconds: 3,
  chat_announce_raffle_opened: true,
  chat_announce_raffle_winners: true,
  chat_announce_race_podium: true,
};

describe('GET/PATCH /api/admin/settings', () => {
  it('answers the defaults, saves any subset, keeps the others, and audits each save', async () => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    const get = () => app.inject({ method: 'GET', url: '/api/admin/settings', headers });
    const patch = (payload: Record<string, unknown>) =>
      app.inject({ method: 'PATCH', url: '/api/admin/settings', headers, payload });

    expect((await get()).json()).toEqual(DEFAULTS);
    const saved = await patch({ car_session_duration_minutes: 12, race_length_minutes: 5 });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({ ...DEFAULTS, car_session_duration_minutes: 12, race_length_minutes: 5 });
    expect((await patch({ min_lap_time_seconds: 7 })).json()).toEqual({
      ...DEFAULTS,
      car_session_duration_minutes: 12,
      race_length_minutes: 5,
      min_lap_time_seconds: 7,
    });
    // A restarted server reads what was saved.
    expect((await app.settings.load()).race_length_minutes).toBe(5);

    const audits = await app.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'settings.update'));
    expect(audits.map((audit) => audit.after)).toEqual([
      { car_session_duration_minutes: 12, race_length_minutes: 5 },
      { min_lap_time_seconds: 7 },
    ]);
    expect(audits[0]?.before).toEqual({ car_session_duration_minutes: 10, race_length_minutes: 3 });
  });

  it.each([
    [{ car_session_duration_minutes: 0 }],
    [{ car_session_duration_minutes: 241 }],
    [{ race_countdown_seconds: 2 }],
    [{ race_countdown_seconds: 11 }],
    [{ race_length_minutes: 0 }],
    [{ race_length_minutes: 31 }],
    [{ min_lap_time_seconds: 0 }],
    [{ min_lap_time_seconds: 61 }],
    [{ race_length_minutes: 2.5 }],
    [{}],
  ])('refuses %j with a 400 and changes nothing', async (payload) => {
    const { app } = testApp;
    const headers = await authHeader(app, await buildAdmin(app.database.db));
    const response = await app.inject({ method: 'PATCH', url: '/api/admin/settings', headers, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().errorKey).toBe('errors.validation');
    expect((await app.inject({ method: 'GET', url: '/api/admin/settings', headers })).json()).toEqual(
      DEFAULTS,
    );
  });
});
