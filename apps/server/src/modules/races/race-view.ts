/**
 * How a race machine state is shown (the race state payload) and rebuilt from the database: the
 * leader's engine and the follower's copy show and restore a race the same way.
 */
import type { RaceState, RaffleStatus } from '@telerace/protocol';
import type { CarDirectory } from '../cars/car-directory.js';
import type { Standing } from './lap-rules.js';
import type { findUnfinishedRace, ParticipantRow } from './race.repo.js';
import type { RaceMachineState } from './race-machine.js';
import * as machine from './race-machine.js';
import type { Driver } from './race-roles.js';

/** The race state payload (spec §3) of `s` at `now`. */
export function presentRace(
  s: RaceMachineState,
  now: number,
  raffleStatus: RaffleStatus,
  directory: Pick<CarDirectory, 'get'>,
): RaceState {
  return {
    race_id: s.raceId,
    race_status: s.status,
    raffle_status: raffleStatus,
    race_expires_at:
      s.status === 'active' && s.expiresAt !== null ? new Date(s.expiresAt).toISOString() : null,
    countdown_value: machine.countdownValue(s, now),
    readyCount: s.participants.filter((p) => p.isReady).length,
    totalParticipants: s.participants.length,
    participants: s.participants.map((p) => ({
      ...p,
      sessionEndsAt: s.status === 'lobby' ? sessionEnd(p, now, directory) : null,
    })),
  };
}

/** A lobby participant's session end, as the car list shows it (undefined once it is over). */
function sessionEnd(p: Driver, now: number, directory: Pick<CarDirectory, 'get'>): string | undefined {
  const session = directory.get(p.carId, now)?.session;
  return session?.userId === p.userId ? session.expiresAt.toISOString() : undefined;
}

/** A racer's standing at the start: no pass yet. */
export function freshStanding(
  p: { userId: number; carId: number; username: string },
  order: number,
): Standing {
  return {
    userId: p.userId,
    carId: p.carId,
    name: p.username,
    lastPassAt: null,
    laps: 0,
    lastLapMs: null,
    bestLapMs: null,
    order,
  };
}

/** The machine's state of an unfinished race as stored (start-up, a new leader, a follower's copy). */
export function restoredState({
  race,
  participants,
}: NonNullable<Awaited<ReturnType<typeof findUnfinishedRace>>>): RaceMachineState {
  return {
    status: race.status === 'finishing' ? 'finishing' : (race.status as RaceMachineState['status']),
    raceId: race.id,
    participants: participants.map((p) => ({
      userId: p.userId,
      username: p.username,
      carId: p.carId,
      carName: p.carName,
      isReady: p.isReady,
      ping: null,
    })),
    countdownEndsAt: race.countdownEndsAt?.getTime() ?? null,
    expiresAt: race.expiresAt?.getTime() ?? null,
  };
}

/** A racer's standing as stored. */
export function standingOf(p: ParticipantRow, order: number): Standing {
  return {
    userId: p.userId,
    carId: p.carId,
    name: p.username,
    lastPassAt: p.lastPassAt?.getTime() ?? null,
    laps: p.laps,
    lastLapMs: p.lastLapMs,
    bestLapMs: p.bestLapMs,
    order,
  };
}
