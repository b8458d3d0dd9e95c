/** Queries on cars, driving sessions and the session-duration setting. */
import { CAR_SESSION_DEFAULT_MINUTES } from '@telerace/protocol';
import { and, asc, eq, gt, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appSettings, carSessions, cars, users } from '../../db/schema.js';

export type CarRow = typeof cars.$inferSelect;
export type CarSessionRow = typeof carSessions.$inferSelect;

/** A car with its current driver (null when available). */
export interface CarWithHolder {
  car: CarRow;
  session: CarSessionRow | null;
  username: string | null;
}

/** A session that holds its car: not ended and not yet expired. */
const liveSession = and(isNull(carSessions.endedAt), gt(carSessions.expiresAt, sql`now()`));

export async function listCarsWithHolders(db: Db, carId?: number): Promise<CarWithHolder[]> {
  const rows = await db
    .select({ car: cars, session: carSessions, username: users.username })
    .from(cars)
    .leftJoin(carSessions, and(eq(carSessions.carId, cars.id), liveSession))
    .leftJoin(users, eq(users.id, carSessions.userId))
    .where(and(isNull(cars.deletedAt), carId === undefined ? undefined : eq(cars.id, carId)))
    .orderBy(asc(cars.id));
  return rows.map((row) => ({ car: row.car, session: row.session, username: row.username }));
}

export async function findLiveCar(db: Db, carId: number): Promise<CarRow | undefined> {
  const [row] = await db
    .select()
    .from(cars)
    .where(and(eq(cars.id, carId), isNull(cars.deletedAt)));
  return row;
}

/** The car row locked for the transaction (serialises connects, kicks and deletion of one car). */
export async function lockLiveCar(tx: Db, carId: number): Promise<CarRow | undefined> {
  const [row] = await tx
    .select()
    .from(cars)
    .where(and(eq(cars.id, carId), isNull(cars.deletedAt)))
    .for('update');
  return row;
}

/**
 * A new control code living `ttlMinutes`, with its count of wrong tries back at zero. The expiry
 * is the database's clock, like every other time compared in SQL.
 */
export async function setControlCode(tx: Db, carId: number, code: string, ttlMinutes: number): Promise<void> {
  await tx
    .update(cars)
    .set({
      controlCode: code,
      controlCodeExpiresAt: sql`now() + make_interval(mins => ${ttlMinutes})`,
      controlCodeFailures: 0,
    })
    .where(eq(cars.id, carId));
}

/** The code opened the car: it is gone. */
export async function clearControlCode(tx: Db, carId: number): Promise<void> {
  await tx
    .update(cars)
    .set({ controlCode: null, controlCodeExpiresAt: null, controlCodeFailures: 0 })
    .where(eq(cars.id, carId));
}

/**
 * Counts one wrong try on the car's current code, in one statement (no lost update when guesses
 * arrive together), and kills the code at the `maxFailures`th. Returns true when this try killed
 * it. A car without a code has nothing to count.
 */
export async function recordWrongCode(tx: Db, carId: number, maxFailures: number): Promise<boolean> {
  const dies = sql`${cars.controlCodeFailures} + 1 >= ${maxFailures}`;
  const [row] = await tx
    .update(cars)
    .set({
      controlCodeFailures: sql`${cars.controlCodeFailures} + 1`,
      controlCode: sql`case when ${dies} then null else ${cars.controlCode} end`,
      controlCodeExpiresAt: sql`case when ${dies} then null else ${cars.controlCodeExpiresAt} end`,
    })
    .where(and(eq(cars.id, carId), isNotNull(cars.controlCode)))
    .returning({ controlCode: cars.controlCode });
  return row !== undefined && row.controlCode === null;
}

export async function findLiveSessionOfCar(db: Db, carId: number): Promise<CarSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(carSessions)
    .where(and(eq(carSessions.carId, carId), liveSession));
  return row;
}

export async function findLiveSessionByToken(db: Db, tokenHash: string): Promise<CarSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(carSessions)
    .where(and(eq(carSessions.controlTokenHash, tokenHash), liveSession));
  return row;
}

export async function listLiveSessions(db: Db): Promise<CarSessionRow[]> {
  return db.select().from(carSessions).where(liveSession);
}

export type EndedSession = Pick<CarSessionRow, 'id' | 'carId' | 'userId'>;

const endedColumns = { id: carSessions.id, carId: carSessions.carId, userId: carSessions.userId };

/** Ends every unended session of the car (live or expired but not yet swept). */
export function endSessionsOfCar(tx: Db, carId: number, reason: string): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: sql`now()`, endReason: reason })
    .where(and(eq(carSessions.carId, carId), isNull(carSessions.endedAt)))
    .returning(endedColumns);
}

export function endSessionsOfUser(tx: Db, userId: number, reason: string): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: sql`now()`, endReason: reason })
    .where(and(eq(carSessions.userId, userId), isNull(carSessions.endedAt)))
    .returning(endedColumns);
}

/** Ends the unended sessions whose time is up (optionally of one car only). */
export function endExpiredSessions(tx: Db, carId?: number): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: sql`now()`, endReason: 'session_expired' })
    .where(
      and(
        isNull(carSessions.endedAt),
        lte(carSessions.expiresAt, sql`now()`),
        carId === undefined ? undefined : eq(carSessions.carId, carId),
      ),
    )
    .returning(endedColumns);
}

export const SESSION_MINUTES_KEY = 'car_session_duration_minutes';

export async function sessionMinutes(db: Db): Promise<number> {
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, SESSION_MINUTES_KEY));
  return typeof row?.value === 'number' ? row.value : CAR_SESSION_DEFAULT_MINUTES;
}

export async function setSessionMinutes(tx: Db, minutes: number): Promise<void> {
  await tx
    .insert(appSettings)
    .values({ key: SESSION_MINUTES_KEY, value: minutes })
    .onConflictDoUpdate({ target: appSettings.key, set: { value: minutes, updatedAt: sql`now()` } });
}
