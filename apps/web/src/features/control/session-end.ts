/**
 * Until when the driver's car is theirs, as the control page says it (issue 23, docs/races.md
 * "When sessions end"): a racer's car is theirs until the race ends (the race state says so with
 * `sessionEndsAt: null`); a lobby participant's until the end the race state gives (the lobby keeps
 * the car longer than the turn); anyone else's until the car status's session end.
 */
import type { RaceState } from '@telerace/protocol';

export type SessionEnd = { kind: 'raceEnd' } | { kind: 'time'; endsAt: string; inLobby: boolean } | null;

export function sessionEndOf(
  race: RaceState | null,
  userId: number | null,
  carId: number,
  carSessionEndsAt: string | null | undefined,
): SessionEnd {
  const racer = race?.participants.find((p) => p.userId === userId && p.carId === carId);
  if (racer?.sessionEndsAt === null) return { kind: 'raceEnd' };
  if (racer?.sessionEndsAt) return { kind: 'time', endsAt: racer.sessionEndsAt, inLobby: true };
  return carSessionEndsAt ? { kind: 'time', endsAt: carSessionEndsAt, inLobby: false } : null;
}
