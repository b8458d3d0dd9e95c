/**
 * The zod schemas of a race's page and of the member's race history and last race, fetched the
 * first time one is parsed: the leaderboards page, opened mostly by signed-out visitors, then never
 * downloads zod (its boards parse with leaderboard-response.ts).
 */
export { LastRaceResponse, RaceDetail, RaceHistoryResponse } from '@telerace/protocol';
