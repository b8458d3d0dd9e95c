/**
 * The race engine's rows: the unfinished race and its participants (the engine's persisted
 * state), counted laps, and the results written when a race finishes. Times come from the
 * engine's clock.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cars, raceLaps, raceParticipants, races, users } from '../../db/schema.js';

export type RaceRow = typeof races.$inferSelect;
export type ParticipantRow = typeof raceParticipants.$inferSelect & { username: string; carName: string };

/** The race that is not finished (lobby, countdown, active or finishing), with its participants in join order. */
export async function findUnfinishedRace(
  db: Db,
): Promise<{ race: RaceRow; participants: ParticipantRow[] } | null> {
  const [race] = await db.select().from(races).where(isNull(races.finishedAt));
  if (!race) return null;
  return { race, participants: await participantsOf(db, race.id) };
}

export async function participantsOf(db: Db, raceId: number): Promise<ParticipantRow[]> {
  const rows = await db
    .select({ participant: raceParticipants, username: users.username, carName: cars.name })
    .from(raceParticipants)
    .innerJoin(users, eq(users.id, raceParticipants.userId))
    .innerJoin(cars, eq(cars.id, raceParticipants.carId))
    .where(eq(raceParticipants.raceId, raceId))
    .orderBy(asc(raceParticipants.joinedAt), asc(raceParticipants.userId));
  return rows.map(({ participant, username, carName }) => ({ ...participant, username, carName }));
}

export async function insertLobby(tx: Db, now: Date, minLapMs: number): Promise<number> {
  const [row] = await tx
    .insert(races)
    .values({ status: 'lobby', createdAt: now, minLapMs })
    .returning({ id: races.id });
  if (!row) throw new Error('the race row was not created');
  return row.id;
}

/** Joins (or switches car): not ready until they say so. */
export async function upsertParticipant(
  tx: Db,
  raceId: number,
  userId: number,
  carId: number,
  now: Date,
): Promise<void> {
  await tx
    .insert(raceParticipants)
    .values({ raceId, userId, carId, joinedAt: now })
    .onConflictDoUpdate({
      target: [raceParticipants.raceId, raceParticipants.userId],
      set: { carId, isReady: false },
    });
}

export async function deleteParticipant(tx: Db, raceId: number, userId: number): Promise<void> {
  await tx
    .delete(raceParticipants)
    .where(and(eq(raceParticipants.raceId, raceId), eq(raceParticipants.userId, userId)));
}

export async function setReady(tx: Db, raceId: number, userId: number, isReady: boolean): Promise<void> {
  await tx
    .update(raceParticipants)
    .set({ isReady })
    .where(and(eq(raceParticipants.raceId, raceId), eq(raceParticipants.userId, userId)));
}

export async function updateRace(
  tx: Db,
  raceId: number,
  fields: Partial<
    Pick<RaceRow, 'status' | 'countdownEndsAt' | 'startedAt' | 'expiresAt' | 'endReason' | 'minLapMs'>
  >,
): Promise<void> {
  await tx.update(races).set(fields).where(eq(races.id, raceId));
}

/** The first counted pass of a participant: their first lap starts. */
export async function recordFirstPass(tx: Db, raceId: number, userId: number, at: Date): Promise<void> {
  await tx
    .update(raceParticipants)
    .set({ lastPassAt: at })
    .where(and(eq(raceParticipants.raceId, raceId), eq(raceParticipants.userId, userId)));
}

export interface CountedLap {
  raceId: number;
  userId: number;
  carId: number;
  lapNumber: number;
  lapTimeMs: number;
  completedAt: Date;
  /** The participant's best lap after this one. */
  bestLapMs: number;
}

/** A completed lap and the participant's totals after it, together. */
export async function recordLap(tx: Db, lap: CountedLap): Promise<void> {
  await tx.insert(raceLaps).values({
    raceId: lap.raceId,
    userId: lap.userId,
    carId: lap.carId,
    lapNumber: lap.lapNumber,
    lapTimeMs: lap.lapTimeMs,
    completedAt: lap.completedAt,
  });
  await tx
    .update(raceParticipants)
    .set({
      lastPassAt: lap.completedAt,
      laps: lap.lapNumber,
      lastLapMs: lap.lapTimeMs,
      bestLapMs: lap.bestLapMs,
    })
    .where(and(eq(raceParticipants.raceId, lap.raceId), eq(raceParticipants.userId, lap.userId)));
}

/** Final positions and the race's end, in the transaction that also updates the leaderboards' summary. */
export async function writeResults(
  tx: Db,
  raceId: number,
  positions: readonly { userId: number; position: number }[],
  finishedAt: Date,
  endReason: string,
): Promise<void> {
  for (const { userId, position } of positions) {
    await tx
      .update(raceParticipants)
      .set({ position })
      .where(and(eq(raceParticipants.raceId, raceId), eq(raceParticipants.userId, userId)));
  }
  await tx.update(races).set({ status: 'finished', finishedAt, endReason }).where(eq(races.id, raceId));
}

/** A lobby that never started leaves nothing behind (its participants go with it). */
export async function discardRace(db: Db, raceId: number): Promise<void> {
  await db.delete(races).where(eq(races.id, raceId));
}
