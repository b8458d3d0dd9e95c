/**
 * The race results calls (spec §7): the all-time and season leaderboards and a race's detail
 * (public), and the member's own race history and last race (signed in). Pages of 10/25/50/100.
 */
import type {
  LastRaceResponse,
  LeaderboardResponse,
  RaceDetail,
  RaceHistoryResponse,
} from '@telerace/protocol';
import { API_BASE, ApiError, sendRequest } from '../../lib/api';
import { authFetch } from '../../lib/auth-client';
import { boardPath, CURRENT_SEASON } from './board-paths';
import { parseLeaderboardResponse } from './leaderboard-response';

export { CURRENT_SEASON };

export const leaderboardKey = (board: 'all-time' | 'season', season = CURRENT_SEASON) =>
  ['leaderboards', board, season] as const;
export const RACE_HISTORY_KEY = ['me', 'race-history'] as const;
export const raceKey = (id: number) => ['races', id] as const;
export const lastRaceKey = (userId: number) => ['me', userId, 'last-race'] as const;

/**
 * A board is the same for every visitor: fetched without the member's token or any header of our
 * own, so the first page's request is exactly the one index.html preloads (src/data-preloads.ts)
 * and the browser hands over the answer it already has.
 */
async function fetchBoard(path: string): Promise<LeaderboardResponse> {
  const res = await sendRequest(`${API_BASE}${path}`, { credentials: 'include' });
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

/** Each call fetches race-schemas.ts alongside its answer, to parse it with. */
export async function fetchRaceHistory(page: number, limit: number): Promise<RaceHistoryResponse> {
  const [body, schemas] = await Promise.all([
    authFetch(`/me/race-history?page=${page}&limit=${limit}`),
    import('./race-schemas'),
  ]);
  return schemas.RaceHistoryResponse.parse(body);
}

/** The member's last finished race with their result and the podium (null before their first). */
export async function fetchLastRace(): Promise<LastRaceResponse> {
  const [body, schemas] = await Promise.all([authFetch('/me/last-race'), import('./race-schemas')]);
  return schemas.LastRaceResponse.parse(body);
}

export async function fetchRace(id: number): Promise<RaceDetail> {
  const [body, schemas] = await Promise.all([authFetch(`/races/${id}`), import('./race-schemas')]);
  return schemas.RaceDetail.parse(body);
}
