/**
 * An admin changes any car's speed limits and trim (issue 23 point 5): not only a car the admin
 * holds. The car online hears `config` at once, its driver keeps driving; a car offline gets the
 * new values in its next `welcome`.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.js';
import { authHeader, buildAdmin, buildUser } from '../../test/factories.js';
import { connectCar, createCar, driveCar, useListeningTestApp } from '../../test/sockets.js';

const testApp = useListeningTestApp();

const configUrl = (carId: number) => `/api/admin/cars/${carId}/config`;

describe("an admin changes a car's config from the Car Status tab", () => {
  it('reaches the driven car at once, the driver keeps driving, and the change is audited', async () => {
    const { app, host } = testApp;
    const { driving, car, taken, controller } = await driveCar(app, host);
    await controller.nextOfType('car-status');
    const otherAdmin = await buildAdmin(app.database.db);
    const settings = { forwardSpeedPercent: 45, backwardSpeedPercent: 25, trimValue: -12 };

    const saved = await app.inject({
      method: 'POST',
      url: configUrl(driving.carId),
      headers: await authHeader(app, otherAdmin),
      payload: settings,
    });

    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().car).toMatchObject({
      config_forward_speed: 45,
      config_backward_speed: 25,
      config_steering_trim: -12,
      current_user_id: taken.driver.id,
    });
    expect(await car.nextOfType('config')).toEqual({ type: 'config', settings });
    controller.send({ type: 'drive', throttle: 0.7, steer: 0.1 });
    expect(await car.next((m) => m.type === 'drive' && m.throttle === 0.7)).toMatchObject({ steer: 0.1 });
    const status = await app.inject({
      method: 'GET',
      url: `/api/cars/${driving.carId}/status`,
      headers: taken.headers,
    });
    expect(status.json()).toMatchObject({ current_user_id: taken.driver.id, config_forward_speed: 45 });
    const audit = await app.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'car.config'), eq(auditLog.targetId, String(driving.carId))));
    expect(audit).toEqual([
      expect.objectContaining({
        actorId: otherAdmin.id,
        targetType: 'car',
        before: { forwardSpeedPercent: 100, backwardSpeedPercent: 100, trimValue: 0 },
        after: settings,
      }),
    ]);
    await controller.close();
    await car.close();
  });

  it('refuses values outside 20–100 and −50…50 (400), members (403) and anonymous callers (401); nothing reaches the car', async () => {
    const { app, host } = testApp;
    const { driving, car, controller } = await driveCar(app, host);
    const otherAdmin = await authHeader(app, await buildAdmin(app.database.db));
    const member = await authHeader(app, await buildUser(app.database.db));
    const good = { forwardSpeedPercent: 50, backwardSpeedPercent: 50, trimValue: 0 };
    const post = (payload: Record<string, unknown>, headers?: Record<string, string>) =>
      app.inject({ method: 'POST', url: configUrl(driving.carId), payload, ...(headers ? { headers } : {}) });

    for (const bad of [
      { ...good, forwardSpeedPercent: 101 },
      { ...good, backwardSpeedPercent: 19 },
      { ...good, trimValue: -51 },
      { ...good, trimValue: 50.5 },
    ]) {
      expect((await post(bad, otherAdmin)).statusCode).toBe(400);
    }
    expect((await post(good, member)).statusCode).toBe(403);
    expect((await post(good)).statusCode).toBe(401);
    // A last accepted save, so the car's inbox is read past every refusal.
    expect((await post({ ...good, trimValue: 3 }, otherAdmin)).statusCode).toBe(200);
    expect(await car.nextOfType('config')).toEqual({ type: 'config', settings: { ...good, trimValue: 3 } });
    expect(car.messages.filter((m) => m.type === 'config')).toHaveLength(1);
    await controller.close();
    await car.close();
  });

  it('an offline car gets the new config in the welcome of its next connection', async () => {
    const { app, host } = testApp;
    const driving = await createCar(app);
    const settings = { forwardSpeedPercent: 20, backwardSpeedPercent: 100, trimValue: 50 };
    const saved = await app.inject({
      method: 'POST',
      url: configUrl(driving.carId),
      headers: await authHeader(app, await buildAdmin(app.database.db)),
      payload: settings,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().car).toMatchObject({ status: 'offline' });

    const car = await connectCar(host, driving.carId, driving.secret);
    expect(car.messages[0]).toEqual({ type: 'welcome', config: settings, driveChannel: true });
    await car.close();
  });
});
