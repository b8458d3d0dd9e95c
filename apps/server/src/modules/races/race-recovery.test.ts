/**
 * A server stopped mid-race and started again on the same database (PGlite on disk, or the same
 * PostgreSQL database) with time moving on: the race resumes from its stored times with every
 * lap, or ends cleanly when its time ran out meanwhile. Never a half-state.
 */
import type { AdminRaceResponse } from '@telerace/protocol';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { carSessions, raceLaps, raceParticipants, races } from '../../db/schema.js';
import { useRestartableApps } from '../../test/restartable-app.js';
import { connectCar, createCar, listen, takeCar } from '../../test/sockets.js';

const apps = useRestartableApps();
const boot = () => apps.boot(true);
/** The server goes away (its timers with it); nothing is written on the way out. */
const crash = (app: FastifyInstance) => apps.stop(app);

const adminView = async (app: FastifyInstance, headers: Record<string, string>) =>
  (await app.inject({ method: 'GET', url: '/api/admin/race', headers })).json() as AdminRaceResponse;

/** A driver holding an online car joins; the admin starts; returns what the test needs. */
async function raceInCountdown(app: FastifyInstance) {
  const host = await listen(app);
  const driving = await createCar(app, 'Red');
  const car = await connectCar(host, driving.carId, driving.secret);
  apps.sockets.push(car);
  const { driver } = await takeCar(app, driving);
  await app.race.run('join_lobby', { userId: driver.id, carId: driving.carId });
  const started = await app.inject({
    method: 'POST',
    url: '/api/admin/race/start',
    headers: driving.adminHeaders,
  });
  expect(started.statusCode, started.body).toBe(200);
  return { carId: driving.carId, driver, headers: driving.adminHeaders };
}

const pass = (app: FastifyInstance, carId: number, at: number) =>
  app.events.emit('lap.passed', { carId, at, source: 'car' });

/** Waits until the engine has handled what was emitted (its commands run one at a time). */
const settled = (app: FastifyInstance) => app.race.settled();

describe('a restart during a race', () => {
  it('mid-race: resumes with the stored end time and laps; a later lap counts from the stored pass', async () => {
    const first = await boot();
    const { carId, headers } = await raceInCountdown(first);
    apps.clock.advance(5_000);
    await settled(first);
    const before = await adminView(first, headers);
    expect(before.state.race_status).toBe('active');
    const t0 = apps.clock.now().getTime();
    pass(first, carId, t0);
    apps.clock.advance(6_000);
    pass(first, carId, t0 + 6_000);
    await settled(first);
    expect((await adminView(first, headers)).leaderboard[0]).toMatchObject({ laps: 1, best_lap: 6_000 });
    await crash(first);

    apps.clock.advance(2_000);
    const second = await boot();
    const resumed = await adminView(second, headers);
    expect(resumed.state.race_status).toBe('active');
    expect(resumed.state.race_expires_at).toBe(before.state.race_expires_at);
    expect(resumed.leaderboard[0]).toMatchObject({ laps: 1, last_lap: 6_000, best_lap: 6_000 });

    apps.clock.advance(5_000);
    pass(second, carId, t0 + 13_000);
    await settled(second);
    expect((await adminView(second, headers)).leaderboard[0]).toMatchObject({ laps: 2, last_lap: 7_000 });

    // Its end comes at the stored time.
    apps.clock.advance(Date.parse(before.state.race_expires_at as string) - apps.clock.now().getTime());
    await settled(second);
    expect((await adminView(second, headers)).state.race_status).toBe('idle');
    const [race] = await second.database.db.select().from(races);
    expect(race).toMatchObject({ status: 'finished', endReason: 'expired' });
    const laps = await second.database.db.select().from(raceLaps).orderBy(asc(raceLaps.lapNumber));
    expect(laps.map((lap) => [lap.lapNumber, lap.lapTimeMs])).toEqual([
      [1, 6_000],
      [2, 7_000],
    ]);
  });

  it('down past the race end: ends it cleanly at start-up with its laps and results', async () => {
    const first = await boot();
    const { carId, driver, headers } = await raceInCountdown(first);
    apps.clock.advance(5_000);
    await settled(first);
    const t0 = apps.clock.now().getTime();
    pass(first, carId, t0);
    apps.clock.advance(8_000);
    pass(first, carId, t0 + 8_000);
    await settled(first);
    await crash(first);

    apps.clock.advance(10 * 60_000);
    const second = await boot();
    expect((await adminView(second, headers)).state.race_status).toBe('idle');
    const [race] = await second.database.db.select().from(races);
    expect(race).toMatchObject({ status: 'finished', endReason: 'recovered' });
    const [result] = await second.database.db.select().from(raceParticipants);
    expect(result).toMatchObject({ userId: driver.id, laps: 1, bestLapMs: 8_000, position: 1 });
  });

  it('mid-countdown: the countdown continues from its stored end', async () => {
    const first = await boot();
    const { headers } = await raceInCountdown(first);
    apps.clock.advance(2_000);
    await settled(first);
    expect((await adminView(first, headers)).state.countdown_value).toBe(3);
    await crash(first);

    apps.clock.advance(1_000);
    const second = await boot();
    const resumed = await adminView(second, headers);
    expect(resumed.state).toMatchObject({ race_status: 'countdown', countdown_value: 2 });
    apps.clock.advance(2_000);
    await settled(second);
    expect((await adminView(second, headers)).state.race_status).toBe('active');
  });

  it('a resumed race keeps its racers’ cars until it ends, even if the stopped server had not yet', async () => {
    const first = await boot();
    const admin = await createCar(first, 'Settings');
    await first.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: admin.adminHeaders,
      payload: { car_session_duration_minutes: 1 },
    });
    const { driver, headers } = await raceInCountdown(first);
    const sessionOf = async (app: FastifyInstance) =>
      (await app.database.db.select().from(carSessions).where(eq(carSessions.userId, driver.id)))[0];
    // Stopped between the start and keeping the cars: the session still ends a minute in.
    const nominal = (await sessionOf(first))?.nominalExpiresAt as Date;
    await first.database.db
      .update(carSessions)
      .set({ expiresAt: nominal })
      .where(eq(carSessions.userId, driver.id));
    await crash(first);

    const second = await boot();
    apps.clock.advance(5_000);
    await settled(second);
    const resumed = await adminView(second, headers);
    expect(resumed.state.race_status).toBe('active');
    const raceEnd = Date.parse(resumed.state.race_expires_at ?? '');
    expect((await sessionOf(second))?.expiresAt.getTime()).toBeGreaterThanOrEqual(raceEnd);
    apps.clock.advance(nominal.getTime() + 1_000 - apps.clock.now().getTime());
    await second.drivingSessions.sweepExpired();
    expect((await sessionOf(second))?.endedAt).toBeNull();
    // The race's end ends it, as every racer's.
    apps.clock.advance(raceEnd - apps.clock.now().getTime());
    await settled(second);
    expect(await sessionOf(second)).toMatchObject({ endReason: 'race_ended' });
  });
});
