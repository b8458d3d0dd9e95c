/**
 * PUT /api/admin/cars/{id}/lap-counter-id: the car admin's mapping of a lap counter's transponder /
 * pilot / node to a car, and the in-memory map the lap counters read (LapCounterIds).
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.js';
import { authHeader, buildUser } from '../../test/factories.js';
import { createCar, useListeningTestApp } from '../../test/sockets.js';
import { LapCounterIds } from '../races/lap-counter-ids.js';

const testApp = useListeningTestApp();

function put(carId: number, headers: Record<string, string>, lapCounterId: unknown) {
  return testApp.app.inject({
    method: 'PUT',
    url: `/api/admin/cars/${carId}/lap-counter-id`,
    headers,
    payload: { lap_counter_id: lapCounterId },
  });
}

describe('lap counter id of a car', () => {
  it('refuses anonymous callers (401) and members (403)', async () => {
    const { app } = testApp;
    const { carId } = await createCar(app);
    expect((await put(carId, {}, '0A')).statusCode).toBe(401);
    const member = await buildUser(app.database.db);
    expect((await put(carId, await authHeader(app, member), '0A')).statusCode).toBe(403);
  });

  it('is set, shown in the admin car, audited, announced, and cleared with null', async () => {
    const { app } = testApp;
    const { carId, adminHeaders } = await createCar(app);
    const facts: unknown[] = [];
    const off = app.events.on('car.lap-counter-id-changed', (fact) => facts.push(fact));
    try {
      const set = await put(carId, adminHeaders, ' 1F40 ');
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json().car).toMatchObject({ id: carId, lap_counter_id: '1F40' });
      const list = await app.inject({ method: 'GET', url: '/api/admin/cars', headers: adminHeaders });
      expect(list.json().find((car: { id: number }) => car.id === carId)).toMatchObject({
        lap_counter_id: '1F40',
      });

      const cleared = await put(carId, adminHeaders, null);
      expect(cleared.json().car.lap_counter_id).toBeNull();
      await expect
        .poll(() => facts)
        .toEqual([
          { carId, lapCounterId: '1F40' },
          { carId, lapCounterId: null },
        ]);
    } finally {
      off();
    }
    const audits = await app.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'car.lap-counter-id'));
    const ofCar = audits.filter((entry) => entry.targetId === String(carId));
    expect(ofCar.map((entry) => [entry.before, entry.after])).toEqual([
      [{ lap_counter_id: null }, { lap_counter_id: '1F40' }],
      [{ lap_counter_id: '1F40' }, { lap_counter_id: null }],
    ]);
  });

  it('answers 409 lapCounterIdInUse when another live car has the id, and frees it when that car is deleted', async () => {
    const { app } = testApp;
    const first = await createCar(app, 'First');
    const second = await createCar(app, 'Second');
    expect((await put(first.carId, first.adminHeaders, 'node:3')).statusCode).toBe(200);

    const taken = await put(second.carId, second.adminHeaders, 'node:3');
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ errorKey: ERROR_KEYS.lapCounterIdInUse });
    // Saving its own id again is no clash.
    expect((await put(first.carId, first.adminHeaders, 'node:3')).statusCode).toBe(200);

    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/admin/cars/${first.carId}`,
      headers: first.adminHeaders,
    });
    expect(deleted.statusCode).toBe(200);
    expect((await put(second.carId, second.adminHeaders, 'node:3')).statusCode).toBe(200);
  });

  it('answers 404 for an unknown car and 400 for an id with other characters', async () => {
    const { app } = testApp;
    const { carId, adminHeaders } = await createCar(app);
    const unknown = await put(999_999, adminHeaders, '0A');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ errorKey: ERROR_KEYS.carNotFound });
    for (const bad of ['', 'two words', 'x'.repeat(41), 42]) {
      expect((await put(carId, adminHeaders, bad)).statusCode).toBe(400);
    }
  });

  it('LapCounterIds loads the live cars’ ids and follows set and remove', async () => {
    const { app } = testApp;
    const a = await createCar(app, 'Mapped A');
    const b = await createCar(app, 'Mapped B');
    const gone = await createCar(app, 'Mapped gone');
    await put(a.carId, a.adminHeaders, 'map-a');
    await put(b.carId, b.adminHeaders, 'map-b');
    await put(gone.carId, gone.adminHeaders, 'map-gone');
    await app.inject({ method: 'DELETE', url: `/api/admin/cars/${gone.carId}`, headers: gone.adminHeaders });

    const ids = new LapCounterIds({ db: app.database.db });
    await ids.load();
    expect(ids.carFor('map-a')).toBe(a.carId);
    expect(ids.lapCounterIdOf(b.carId)).toBe('map-b');
    expect(ids.carFor('map-gone')).toBeNull();

    ids.set(a.carId, 'map-a2');
    expect(ids.carFor('map-a')).toBeNull();
    expect(ids.carFor('map-a2')).toBe(a.carId);
    ids.remove(b.carId);
    expect(ids.carFor('map-b')).toBeNull();
    expect(ids.lapCounterIdOf(b.carId)).toBeNull();
  });
});
