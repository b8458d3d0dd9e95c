/**
 * Queries on cars, driving sessions and the session-duration setting: the only SQL of the cars
 * module. Times come from the caller's clock (clock.ts), never from the database's `now()`, so the
 * service's timers and the stored expiries agree and tests can move time.
 */
import type { CarConfig } from '@telerace/protocol';
import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { carSessions, cars, users } from '../../db/schema.js';

export type CarRow = typeof cars.$inferSelect;
export type CarSessionRow = typeof carSessions.$inferSelect;

/** A car with its current driver (null when available). */
export interface CarWithHolder {
  car: CarRow;
  session: CarSessionRow | null;
  username: string | null;
}

/** A session that holds its car at `now`: not ended and not yet expired. */
const liveSession = (now: Date) => and(isNull(carSessions.endedAt), gt(carSessions.expiresAt, now));

export async function listCarsWithHolders(db: Db, now: Date, carId?: number): Promise<CarWithHolder[]> {
  const rows = await db
    .select({ car: cars, session: carSessions, username: users.username })
    .from(cars)
    .leftJoin(carSessions, and(eq(carSessions.carId, cars.id), liveSession(now)))
    .leftJoin(users, eq(users.id, carSessions.userId))
    .where(and(isNull(cars.deletedAt), carId === undefined ? undefined : eq(cars.id, carId)))
    .orderBy(asc(cars.id));
  return rows.map((row) => ({ car: row.car, session: row.session, username: row.username }));
}

/** A car row's limits, as the protocol (and the car) reads them. */
export function configOf(car: CarRow): CarConfig {
  return {
    forwardSpeedPercent: car.configForwardSpeed,
    backwardSpeedPercent: car.configBackwardSpeed,
    trimValue: car.configSteeringTrim,
  };
}

/** The live car's limits, or null when it is gone (a car's `welcome`). */
export async function findLiveCarConfig(db: Db, carId: number): Promise<CarConfig | null> {
  const car = await findLiveCar(db, carId);
  return car ? configOf(car) : null;
}

export async function findLiveCar(db: Db, carId: number): Promise<CarRow | undefined> {
  const [row] = await db
    .select()
    .from(cars)
    .where(and(eq(cars.id, carId), isNull(cars.deletedAt)));
  return row;
}

/** A car's stream id, deleted or not (a deleted car's row stays, with `deleted_at`). */
export async function findCarStreamId(db: Db, carId: number): Promise<number | null> {
  const [row] = await db.select({ streamId: cars.streamId }).from(cars).where(eq(cars.id, carId));
  return row?.streamId ?? null;
}

export function findLiveCarsNamed(db: Db, names: string[]): Promise<CarRow[]> {
  return db
    .select()
    .from(cars)
    .where(and(inArray(cars.name, names), isNull(cars.deletedAt)));
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

export async function insertCar(
  tx: Db,
  values: { name: string; imageUrl: string | null; secretHash: string },
): Promise<CarRow> {
  const [car] = await tx.insert(cars).values(values).returning();
  if (!car) throw new Error('insert returned no row');
  return car;
}

export async function setCarSecret(tx: Db, carId: number, secretHash: string): Promise<void> {
  await tx.update(cars).set({ secretHash }).where(eq(cars.id, carId));
}

export async function setCarConfig(tx: Db, carId: number, config: CarConfig): Promise<void> {
  await tx
    .update(cars)
    .set({
      configForwardSpeed: config.forwardSpeedPercent,
      configBackwardSpeed: config.backwardSpeedPercent,
      configSteeringTrim: config.trimValue,
    })
    .where(eq(cars.id, carId));
}

/** The car's lap counter id (transponder / pilot / node), null to clear it. */
export async function setLapCounterId(tx: Db, carId: number, lapCounterId: string | null): Promise<void> {
  await tx.update(cars).set({ lapCounterId }).where(eq(cars.id, carId));
}

/** The live car other than `carId` that has this lap counter id, if any. */
export async function findOtherLiveCarWithLapCounterId(
  db: Db,
  lapCounterId: string,
  carId: number,
): Promise<CarRow | undefined> {
  const [row] = await db
    .select()
    .from(cars)
    .where(and(eq(cars.lapCounterId, lapCounterId), isNull(cars.deletedAt), ne(cars.id, carId)));
  return row;
}

/** Soft delete: the row stays for the audit log and the sessions' history; its code dies. */
export async function markCarDeleted(tx: Db, carId: number, now: Date): Promise<void> {
  await tx
    .update(cars)
    .set({ deletedAt: now, controlCode: null, controlCodeExpiresAt: null })
    .where(eq(cars.id, carId));
}

/** A new control code valid until `expiresAt`, with its count of wrong tries back at zero. */
export async function setControlCode(tx: Db, carId: number, code: string, expiresAt: Date): Promise<void> {
  await tx
    .update(cars)
    .set({
      controlCode: code,
      controlCodeExpiresAt: expiresAt,
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

export async function findLiveSessionOfCar(
  db: Db,
  carId: number,
  now: Date,
): Promise<CarSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(carSessions)
    .where(and(eq(carSessions.carId, carId), liveSession(now)));
  return row;
}

export async function findLiveSessionByToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<CarSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(carSessions)
    .where(and(eq(carSessions.controlTokenHash, tokenHash), liveSession(now)));
  return row;
}

export async function listLiveSessions(db: Db, now: Date): Promise<CarSessionRow[]> {
  return db.select().from(carSessions).where(liveSession(now));
}

/** A new session, ending at the end it is given (a race may keep it longer: issue 23). */
export async function insertSession(
  tx: Db,
  values: { carId: number; userId: number; controlTokenHash: string; expiresAt: Date },
): Promise<CarSessionRow> {
  const [session] = await tx
    .insert(carSessions)
    .values({ ...values, nominalExpiresAt: values.expiresAt })
    .returning();
  if (!session) throw new Error('insert returned no row');
  return session;
}

/** The holder connected again: the session's control token is replaced by a fresh one. */
export async function setSessionControlToken(tx: Db, sessionId: number, tokenHash: string): Promise<void> {
  await tx.update(carSessions).set({ controlTokenHash: tokenHash }).where(eq(carSessions.id, sessionId));
}

/** The session holds its car until `expiresAt` now (a race keeps it, or gives it back). */
export async function setSessionEnd(tx: Db, sessionId: number, expiresAt: Date): Promise<void> {
  await tx.update(carSessions).set({ expiresAt }).where(eq(carSessions.id, sessionId));
}

export type EndedSession = Pick<CarSessionRow, 'id' | 'carId' | 'userId'>;

const endedColumns = { id: carSessions.id, carId: carSessions.carId, userId: carSessions.userId };

/** Ends every unended session of the car (live or expired but not yet swept). */
export function endSessionsOfCar(tx: Db, carId: number, reason: string, now: Date): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: now, endReason: reason })
    .where(and(eq(carSessions.carId, carId), isNull(carSessions.endedAt)))
    .returning(endedColumns);
}

export function endSessionsOfUser(
  tx: Db,
  userId: number,
  reason: string,
  now: Date,
): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: now, endReason: reason })
    .where(and(eq(carSessions.userId, userId), isNull(carSessions.endedAt)))
    .returning(endedColumns);
}

/** Ends the unended sessions whose time is up at `now` (optionally of one car only). */
export function endExpiredSessions(tx: Db, now: Date, carId?: number): Promise<EndedSession[]> {
  return tx
    .update(carSessions)
    .set({ endedAt: now, endReason: 'session_expired' })
    .where(
      and(
        isNull(carSessions.endedAt),
        lte(carSessions.expiresAt, now),
        carId === undefined ? undefined : eq(carSessions.carId, carId),
      ),
    )
    .returning(endedColumns);
}
