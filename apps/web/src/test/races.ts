/** Race payloads as the server sends them (spec §3), for the race screens' tests. */
import {
  IDLE_RACE_STATE,
  type LiveLeaderboardRow,
  type RaceParticipant,
  type RaceState,
} from '@telerace/protocol';

export function pilot(userId: number, patch: Partial<RaceParticipant> = {}): RaceParticipant {
  return {
    userId,
    username: `pilot${userId}#${userId}`,
    carId: userId + 100,
    carName: `Car ${userId}`,
    isReady: false,
    ping: null,
    ...patch,
  };
}

/** A race state (a lobby of race 7 by default) whose counts follow its participants. */
export function raceState(patch: Partial<RaceState> = {}): RaceState {
  const participants = patch.participants ?? [];
  return {
    ...IDLE_RACE_STATE,
    race_id: 7,
    race_status: 'lobby',
    totalParticipants: participants.length,
    readyCount: participants.filter((p) => p.isReady).length,
    ...patch,
    participants,
  };
}

export function leaderboardRow(userId: number, patch: Partial<LiveLeaderboardRow> = {}): LiveLeaderboardRow {
  return {
    pos: 1,
    name: `pilot${userId}#${userId}`,
    laps: 0,
    last_lap: null,
    best_lap: null,
    user_id: userId,
    car_id: userId + 100,
    ...patch,
  };
}
