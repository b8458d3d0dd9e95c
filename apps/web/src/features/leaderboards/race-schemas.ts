/**
 * The zod schemas of a race's page and the member's race history, fetched the first time one is
 * parsed: the leaderboards page, opened mostly by signed-out visitors, then never downloads zod
 * (its boards parse with leaderboard-response.ts).
 */
export { RaceDetail, RaceHistoryResponse } from '@telerace/protocol';
