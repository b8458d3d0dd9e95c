/**
 * The API paths of the public boards, shared by the page's fetches and by the list of answers
 * index.html preloads (src/data-preloads.ts, read at build time: no import of the app here).
 */

/** The one season so far: every race (docs/races.md). */
export const CURRENT_SEASON = 0;

export type Board = { board: 'all-time' } | { board: 'season'; season: number };

/** `/leaderboards/…?page=…&limit=…`, below `/api`. */
export function boardPath(which: Board, page: number, limit: number): string {
  const board = which.board === 'all-time' ? 'all-time' : `season/${which.season}`;
  return `/leaderboards/${board}?page=${page}&limit=${limit}`;
}
