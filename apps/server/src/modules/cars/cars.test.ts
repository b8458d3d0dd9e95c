import { CONTROL_CODE_ALPHABET, CONTROL_CODE_LENGTH } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, carSessions, cars } from '../../db/schema.js';
import { authHeader, buildUser } from '../../test/factories.js';
import { connectCar, createCar, generateCode, takeCar, useListeningTestApp } from '../../test/sockets.js';
import { hashToken } from '../../tokens.js';

const testApp = useListeningTestApp();

const ADMIN_ENDPOINTS: [string, string, Record<string, unknown>?][] = [
  ['GET', '/api/admin/cars'],
  ['POST', '/api/admin/cars', { name: 'x', image_url: null }],
  ['POST', '/api/admin/cars/1/rotate-secret'],
  ['DELETE', '/api/admin/cars/1'],
  ['POST', '/api/admin/cars/1/generate_code'],
  ['POST', '/api/admin/cars/1/kick'],
  ['POST', '/api/admin/cars/1/command', { command: 'reboot' }],
  ['POST', '/api/admin/cars/1/config', { forwardSpeedPercent: 50, backwardSpeedPercent: 50, trimValue: 0 }],
  ['GET', '/api/admin/settings'],
  ['PATCH', '/api/admin/settings', { car_session_duration_minutes: 5 }],
];

describe('admin car endpoints', () => {
  it.each(ADMIN_ENDPOINTS)(
    '%s %s refuses anonymous callers (401) and members (403)',
    async (method, url, payload) => {
      const { app } = testApp;
      const anonymous = await app.inject({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
      expect(anonymous.statusCode).toBe(401);
      const member = await buildUser(app.database.db);
      const asMember = await app.inject({
        method: method as 'GET',
        url,
        headers: await authHeader(app, member),
        ...(payload ? { payload } : {}),
      });
      expect(asMember.statusCode).toBe(403);
    },
  );

  it('create a car and return its secret once; only the hash is stored; audited', async () => {
    const { app } = testApp;
    const { carId, secret, adminHeaders } = await createCar(app, 'Red one');
    const [row] = await app.database.db.select().from(cars).where(eq(cars.id, carId));
    expect(row?.secretHash).toBe(hashToken(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row?.streamId).toBe(1000 + carId);
    const list = await app.inject({ method: 'GET', url: '/api/admin/cars', headers: adminHeaders });
    expect(list.body).not.toContain(secret);
    const car = (list.json() as { id: number; name: string; status: string; control_code: null }[]).find(
      (c) => c.id === carId,
    );
    expect(car).toMatchObject({ name: 'Red one', status: 'offline', control_code: null, username: null });
    const audit = await app.database.db.select().from(auditLog).where(eq(auditLog.action, 'car.create'));
    expect(audit.some((entry) => entry.targetId === String(carId))).toBe(true);
  });

  it('validate the config: 20–100, 20–100, −50–50 integers', async () => {
    const { app } = testApp;
    const { carId, adminHeaders } = await createCar(app);
    const post = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: `/api/admin/cars/${carId}/config`, headers: adminHeaders, payload });
    for (const bad of [
      { forwardSpeedPercent: 19, backwardSpeedPercent: 50, trimValue: 0 },
      { forwardSpeedPercent: 50, backwardSpeedPercent: 101, trimValue: 0 },
      { forwardSpeedPercent: 50, backwardSpeedPercent: 50, trimValue: 51 },
      { forwardSpeedPercent: 50.5, backwardSpeedPercent: 50, trimValue: 0 },
      { forwardSpeedPercent: 50, backwardSpeedPercent: 50 },
    ]) {
      expect((await post(bad)).statusCode).toBe(400);
    }
    const ok = await post({ forwardSpeedPercent: 20, backwardSpeedPercent: 100, trimValue: -50 });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().car).toMatchObject({
      config_forward_speed: 20,
      config_backward_speed: 100,
      config_steering_trim: -50,
    });
  });

  it('generate a code: CONTROL_CODE_LENGTH unambiguous uppercase characters, replacing the last one', async () => {
    const { app } = testApp;
    const driving = await createCar(app);
    const first = await generateCode(app, driving);
    const second = await generateCode(app, driving);
    for (const code of [first, second]) {
      expect(code).toHaveLength(CONTROL_CODE_LENGTH);
      expect([...code].every((c) => CONTROL_CODE_ALPHABET.includes(c))).toBe(true);
    }
    const [row] = await app.database.db.select().from(cars).where(eq(cars.id, driving.carId));
    expect(row?.controlCode).toBe(second);
    const audits = await app.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'car.generate-code'));
    expect(JSON.stringify(audits)).not.toContain(second);
  });

  it('command: 409 carOffline when the car is not connected, 404 for an unknown car', async () => {
    const { app } = testApp;
    const { carId, adminHeaders } = await createCar(app);
    const offline = await app.inject({
      method: 'POST',
      url: `/api/admin/cars/${carId}/command`,
      headers: adminHeaders,
      payload: { command: 'reboot' },
    });
    expect(offline.statusCode).toBe(409);
    expect(offline.json()).toEqual({ error: 'The car is offline.', errorKey: 'errors.carOffline' });
    const unknown = await app.inject({
      method: 'POST',
      url: '/api/admin/cars/999999/command',
      headers: adminHeaders,
      payload: { command: 'reboot' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorKey).toBe('errors.carNotFound');
  });
});

describe('connecting to a car', () => {
  it('needs the right code (single use), a free car, and an unbanned member', async () => {
    const { app } = testApp;
    const driving = await createCar(app);
    const url = `/api/cars/${driving.carId}/connect`;
    const alice = await buildUser(app.database.db);
    const bob = await buildUser(app.database.db);
    const aliceHeaders = await authHeader(app, alice);
    const bobHeaders = await authHeader(app, bob);

    const empty = await app.inject({ method: 'POST', url, headers: aliceHeaders, payload: { code: '' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toContain('A control code is required.');

    const code = await generateCode(app, driving);
    const wrong = await app.inject({
      method: 'POST',
      url,
      headers: aliceHeaders,
      payload: { code: 'WRONG1' },
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ error: 'Invalid control code', errorKey: 'errors.invalidControlCode' });

    // Typed in lowercase: codes are uppercased.
    const ok = await app.inject({
      method: 'POST',
      url,
      headers: aliceHeaders,
      payload: { code: code.toLowerCase() },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const body = ok.json();
    expect(body.ok).toBe(true);
    expect(body.car).toMatchObject({
      id: driving.carId,
      current_user_id: alice.id,
      username: alice.username,
    });
    expect(typeof body.controlToken).toBe('string');
    const [session] = await app.database.db
      .select()
      .from(carSessions)
      .where(eq(carSessions.userId, alice.id));
    expect(session?.controlTokenHash).toBe(hashToken(body.controlToken));
    const minutes = ((session?.expiresAt.getTime() ?? 0) - (session?.startedAt.getTime() ?? 0)) / 60_000;
    expect(minutes).toBeCloseTo(10, 1);

    const inUse = await app.inject({ method: 'POST', url, headers: bobHeaders, payload: { code } });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toEqual({
      error: 'This car is in use by another driver.',
      errorKey: 'errors.carInUse',
    });

    // The holder reconnects without a new code and gets a new control token for the same session.
    const again = await app.inject({ method: 'POST', url, headers: aliceHeaders, payload: { code: 'ANY' } });
    expect(again.statusCode).toBe(200);
    expect(again.json().controlToken).not.toBe(body.controlToken);
    expect(again.json().car.session_ends_at).toBe(body.car.session_ends_at);

    // The code was consumed.
    const [row] = await app.database.db.select().from(cars).where(eq(cars.id, driving.carId));
    expect(row?.controlCode).toBeNull();

    const banned = await buildUser(app.database.db, { isBanned: true });
    const bannedResponse = await app.inject({
      method: 'POST',
      url,
      headers: await authHeader(app, banned),
      payload: { code },
    });
    expect(bannedResponse.statusCode).toBe(401);
    expect(bannedResponse.json().errorKey).toBe('errors.banned');

    const unknown = await app.inject({
      method: 'POST',
      url: '/api/cars/999999/connect',
      headers: bobHeaders,
      payload: { code },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorKey).toBe('errors.carNotFound');
    const anonymous = await app.inject({ method: 'POST', url, payload: { code } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('GET /api/cars: online only while the car socket is connected, the driver while held', async () => {
    const { app } = testApp;
    const driving = await createCar(app);
    const member = await buildUser(app.database.db);
    const headers = await authHeader(app, member);
    const find = async () => {
      const response = await app.inject({ method: 'GET', url: '/api/cars', headers });
      expect(response.statusCode).toBe(200);
      return (response.json() as { id: number; status: string; username: string | null }[]).find(
        (c) => c.id === driving.carId,
      );
    };
    expect(await find()).toMatchObject({ status: 'offline', username: null, current_user_id: null });
    expect((await app.inject({ method: 'GET', url: '/api/cars' })).statusCode).toBe(401);

    const car = await connectCar(testApp.host, driving.carId, driving.secret);
    expect((await find())?.status).toBe('online');
    const { driver } = await takeCar(app, driving);
    expect(await find()).toMatchObject({ username: driver.username, current_user_id: driver.id });
    const status = await app.inject({ method: 'GET', url: `/api/cars/${driving.carId}/status`, headers });
    expect(status.json()).toMatchObject({ id: driving.carId, status: 'online', config_forward_speed: 100 });

    await car.close();
    await expect.poll(async () => (await find())?.status).toBe('offline');
  });
});
