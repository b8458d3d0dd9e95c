/**
 * The race results calls (spec §7): the all-time and season leaderboards and a race's detail
 * (public), and the member's own race history (signed in). Pages of 10/25/50/100.
 */
import { LeaderboardResponse, RaceDetail, RaceHistoryResponse } from '@telerace/protocol';
import { authFetch } from '../../lib/auth-client';

/** The one season so far: every race (docs/races.md). */
export const CURRENT_SEASON = 0;

export const leaderboardKey = (board: 'all-time' | 'season', season = CURRENT_SEASON) =>
  ['leaderboards', board, season] as const;
export const RACE_HISTORY_KEY = ['me', 'race-history'] as const;
export const raceKey = (id: number) => ['races', id] as const;

const pageQuery = (page: number, limit: number) => `page=${page}&limit=${limit}`;

export function fetchAllTime(page: number, limit: number): Promise<LeaderboardResponse> {
  return authFetch(`/leaderboards/all-time?${pageQuery(page, limit)}`, {}, LeaderboardResponse);
}

export function fetchSeason(season: number, page: number, limit: number): Promise<LeaderboardResponse> {
  return authFetch(`/leaderboards/season/${season}?${pageQuery(page, limit)}`, {}, LeaderboardResponse);
}

export function fetchRaceHistory(page: number, limit: number): Promise<RaceHistoryResponse> {
  return authFetch(`/me/race-history?${pageQuery(page, limit)}`, {}, RaceHistoryResponse);
}

export function fetchRace(id: number): Promise<RaceDetail> {
  return authFetch(`/races/${id}`, {}, RaceDetail);
}
