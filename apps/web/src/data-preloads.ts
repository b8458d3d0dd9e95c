/**
 * The answers a page fetches first that are the same for every visitor, per first path segment:
 * the web build writes them to `data-preloads.json` (route-preloads.ts) and the server adds them to
 * index.html as `<link rel="preload" as="fetch" crossorigin="use-credentials">` when the document
 * is opened at that page (apps/server/src/http/page-index.ts), so the answer downloads alongside
 * the scripts instead of after them. A preload is used only by the same request: the page must
 * fetch exactly this URL, with `credentials: 'include'` and no header of its own (no token).
 */
import { boardPath } from './features/leaderboards/board-paths';

export const DATA_PRELOADS_FILE = 'data-preloads.json';

/** The boards' first page size (the protocol's LEADERBOARD_DEFAULT_PAGE_SIZE; data-preloads.test.ts holds them together). */
export const BOARD_FIRST_PAGE_SIZE = 10;

export const DATA_PRELOADS: Record<string, string[]> = {
  // The all-time board is the tab the page opens on.
  leaderboards: [`/api${boardPath({ board: 'all-time' }, 1, BOARD_FIRST_PAGE_SIZE)}`],
};
