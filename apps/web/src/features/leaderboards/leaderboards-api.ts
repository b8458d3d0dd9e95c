/**
 * The race results calls (spec §7): the all-time and season leaderboards and a race's detail
 * (public), and the member's own race history (signed in). Pages of 10/25/50/100.
 */
import type { LeaderboardResponse, RaceDetail, RaceHistoryResponse } from '@telerace/protocol';
import { API_BASE, ApiError } from '../../lib/api';
import { authFetch } from '../../lib/auth-client';
import { boardPath, CURRENT_SEASON } from './board-paths';
import { parseLeaderboardResponse } from './leaderboard-response';

export { CURRENT_SEASON };

export const leaderboardKey = (board: 'all-time' | 'season', season = CURRENT_SEASON) =>
  ['leaderboards', board, season] as const;
export const RACE_HISTORY_KEY = ['me', 'race-history'] as const;
export const raceKey = (id: number) => ['races', id] as const;

/**
 * A board is the same for every visitor: fetched without the member's token or any header of our
 * own, so the first page's request is exactly the one index.html preloads (src/data-preloads.ts)
 * and the browser hands over the answer it already has.
 */
async function fetchBoard(path: string): Promise<LeaderboardResponse> {
  const res = await fetch(`${API_BASE}${path}`, { credentials: 'include' });
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const error = (body as { error?: unknown } | undefined)?.error;
    throw new ApiError(res.status, typeof error === 'string' ? error : `HTTP ${res.status}`);
  }
  return parseLeaderboardResponse(body);
}

export function fetchAllTime(page: number, limit: number): Promise<LeaderboardResponse> {
  return fetchBoard(boardPath({ board: 'all-time' }, page, limit));
}

export function fetchSeason(season: number, page: number, limit: number): Promise<LeaderboardResponse> {
  return fetchBoard(boardPath({ board: 'season', season }, page, limit));
}

/** The answer of `path` parsed with a schema of race-schemas.ts, fetched alongside the call. */
async function fetchParsed<T>(
  path: string,
  schemaOf: (schemas: typeof import('./race-schemas')) => {
    parse: (body: unknown) => T;
  },
): Promise<T> {
  const [body, schemas] = await Promise.all([authFetch(path), import('./race-schemas')]);
  return schemaOf(schemas).parse(body);
}

export function fetchRaceHistory(page: number, limit: number): Promise<RaceHistoryResponse> {
  return fetchParsed(`/me/race-history?page=${page}&limit=${limit}`, (s) => s.RaceHistoryResponse);
}

export function fetchRace(id: number): Promise<RaceDetail> {
  return fetchParsed(`/races/${id}`, (s) => s.RaceDetail);
}
