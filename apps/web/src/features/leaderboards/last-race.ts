/**
 * The member's last race on the home page (issue 41): the end of a race sends its drivers home
 * (spec §4), where their result waits for them. It comes from the server (GET /api/me/last-race),
 * so a reload shows it too, and only to the member who drove it. It is offered while recent
 * (LAST_RACE_RECENT_MS after the race finished); the member may fold the full result away, which
 * this browser remembers per member and race, leaving a one-line reminder with the same link.
 */
import type { LastRace } from '@telerace/protocol';

/** How long after a race finished the home page still offers it: a day (one evening's stream and the next morning). */
export const LAST_RACE_RECENT_MS = 24 * 60 * 60 * 1000;

/** Whether the race finished recently enough to be offered at `now`. */
export function isRecent(race: Pick<LastRace, 'finished_at'>, now: number): boolean {
  const finished = Date.parse(race.finished_at);
  return Number.isFinite(finished) && now - finished < LAST_RACE_RECENT_MS;
}

const storageKey = (userId: number) => `lastRaceFolded:${userId}`;

/** The race whose full result the member folded away in this browser, or null. */
export function foldedRace(userId: number): number | null {
  try {
    const value = Number(window.localStorage.getItem(storageKey(userId)));
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** Remembers that the member folded this race's result away (a newer race shows in full again). */
export function foldRace(userId: number, raceId: number): void {
  try {
    window.localStorage.setItem(storageKey(userId), String(raceId));
  } catch {
    // Storage refused (private mode, quota): the result folds for this visit only.
  }
}
