/**
 * The protocol's `LeaderboardResponse.parse`, without zod: the leaderboards page is opened from the
 * stream's links by signed-out visitors, and zod with the protocol's schemas would be the largest
 * download of that page (issue 11 §4, as public-config.ts does for the landing page). Same answers
 * as the schema (unknown fields left out, an invalid body rejected): leaderboard-response.test.ts
 * holds the two together.
 */
import type { LeaderboardResponse, LeaderboardRow } from '@telerace/protocol';

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(what: string): never {
  throw new Error(`leaderboard: ${what}`);
}

function int(fields: Fields, key: string): number {
  const value = fields[key];
  return Number.isSafeInteger(value) ? (value as number) : fail(`${key} is not an integer`);
}

function intOrNull(fields: Fields, key: string): number | null {
  return fields[key] === null ? null : int(fields, key);
}

function text(fields: Fields, key: string): string {
  const value = fields[key];
  return typeof value === 'string' ? value : fail(`${key} is not a string`);
}

function textOrNull(fields: Fields, key: string): string | null {
  return fields[key] === null ? null : text(fields, key);
}

function rowOf(value: unknown): LeaderboardRow {
  if (!isFields(value)) fail('a row is not an object');
  return {
    user_id: int(value, 'user_id'),
    username: text(value, 'username'),
    avatar_url: textOrNull(value, 'avatar_url'),
    best_race_laps: int(value, 'best_race_laps'),
    best_race_lap_time: intOrNull(value, 'best_race_lap_time'),
    total_races: int(value, 'total_races'),
  };
}

export function parseLeaderboardResponse(body: unknown): LeaderboardResponse {
  if (!isFields(body) || !Array.isArray(body.data)) fail('not a page of rows');
  return { data: body.data.map(rowOf), totalCount: int(body, 'totalCount') };
}
