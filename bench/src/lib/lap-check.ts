/**
 * Lost laps: a race's finish-line crossings as each car logged them, against the passes the server
 * counted (docs/races.md "Lap counting"). A car's first counted pass starts its first lap and
 * each later one completes a lap, so the counted passes are the first lap's start (its completion
 * less its time) and every lap's completion, to the millisecond the car sent. A crossing the car
 * made while the race ran that is not among them is a lost lap; a counted pass no car made is a
 * phantom. Crossings close to the race's start or end are left out of "lost": a pass reaching
 * the server after the race ended is rightly ignored, and on a busy machine a pass spends up to
 * a second or so between the car's crossing and the engine (event-loop delays on both sides).
 */
import type { Crossing } from './server-log.js';

/** A crossing this close after the start, or this close before the end, may rightly not count. */
export const START_MARGIN_MS = 250;
export const END_MARGIN_MS = 2_000;

export interface RaceLaps {
  raceId: number;
  /** When the race went active, and when it ended (its end time, or the admin's End race), epoch ms. */
  startedAt: number;
  endedAt: number;
  participants: { carId: number; laps: { completedAt: number; lapTimeMs: number }[] }[];
}

export interface LapCheck {
  /** Crossings the cars made well inside their race's time: each must be a counted pass. */
  checked: number;
  /** Laps the server recorded. */
  counted: number;
  lost: { raceId: number; carId: number; at: number; sent: boolean }[];
  phantom: { raceId: number; carId: number; at: number }[];
  /** Cars with a single crossing in the race and no lap: their one counted pass is not published. */
  unverifiable: number;
}

export function checkLaps(race: RaceLaps, crossingsOf: (carId: number) => Crossing[]): LapCheck {
  const check: LapCheck = { checked: 0, counted: 0, lost: [], phantom: [], unverifiable: 0 };
  const sureFrom = race.startedAt + START_MARGIN_MS;
  const sureTo = race.endedAt - END_MARGIN_MS;
  for (const { carId, laps } of race.participants) {
    const all = crossingsOf(carId);
    const sure = all.filter((c) => c.at >= sureFrom && c.at <= sureTo);
    check.counted += laps.length;
    const first = laps[0];
    if (!first && sure.length === 1) {
      // No lap: at most one pass counted, and it is not published.
      check.unverifiable++;
      continue;
    }
    check.checked += sure.length;
    if (!first) {
      for (const c of sure) check.lost.push({ raceId: race.raceId, carId, ...c });
      continue;
    }
    const counted = new Set([first.completedAt - first.lapTimeMs, ...laps.map((lap) => lap.completedAt)]);
    for (const c of sure) if (!counted.has(c.at)) check.lost.push({ raceId: race.raceId, carId, ...c });
    const made = new Set(all.map((c) => c.at));
    for (const at of counted) if (!made.has(at)) check.phantom.push({ raceId: race.raceId, carId, at });
  }
  return check;
}

export function sumChecks(checks: LapCheck[]): LapCheck {
  return {
    checked: checks.reduce((n, c) => n + c.checked, 0),
    counted: checks.reduce((n, c) => n + c.counted, 0),
    lost: checks.flatMap((c) => c.lost),
    phantom: checks.flatMap((c) => c.phantom),
    unverifiable: checks.reduce((n, c) => n + c.unverifiable, 0),
  };
}
