/**
 * Leaderboards (all-time, per season), a member's race history and a finished race's page. The
 * all-time board (= season 0) reads the per-member summary kept by `recordRaceInStats`; its first
 * pages are answered from memory (`firstPages`). Season N > 0 covers the races finished in
 * the season's [starts_at, ends_at) (docs/leaderboards.md).
 */
import {
  ERROR_KEYS,
  type LastRaceResponse,
  type LeaderboardPageQuery,
  LeaderboardResponse,
  type RaceDetail,
  type RaceHistoryResponse,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import type { EventHandlers } from '../../events.js';
import { cachedAnswer, type PreparedAnswer } from '../../http/cached-answer.js';
import {
  presentHistoryRow,
  presentLastRace,
  presentLeaderboardRow,
  presentRaceDetail,
} from './leaderboards.presenter.js';
import {
  allTimeCount,
  allTimePage,
  findFinishedRace,
  findSeason,
  type Page,
  raceHistoryCount,
  raceHistoryPage,
  raceLapRows,
  raceResults,
  seasonCount,
  seasonPage,
} from './leaderboards.repo.js';
import { recordRaceInStats } from './user-race-stats.repo.js';

/** Season 0 has no dates: every race, the same board as all-time. */
export const ALL_TIME_SEASON = 0;

const pageOf = ({ page, limit }: LeaderboardPageQuery): Page => ({ limit, offset: (page - 1) * limit });

export class LeaderboardsService {
  readonly db: Db;
  readonly log: FastifyBaseLogger;
  /**
   * The first page of the all-time board (= season 0) at each page size, as the answer sent: the
   * Leaderboards page opens on it, for every visitor. The database stays the truth; a page is
   * dropped when a race finishes (`race.finished`, emitted after the results commit: every rank,
   * count and total may change) and when a member shown on it changes (`user.changed`: name,
   * avatar, deletion's scrub; sign-ins change nobody's row on the board).
   */
  readonly firstPages = cachedAnswer<typeof LeaderboardResponse, number>(LeaderboardResponse, {
    'race.finished': () => true,
    'user.changed': ({ userId }, page) => page.data.some((row) => row.user_id === userId),
  });

  constructor({ db, log }: { db: Db; log: FastifyBaseLogger }) {
    this.db = db;
    this.log = log;
  }

  /**
   * Adds a finished race to its drivers' summaries, inside the transaction that writes its results
   * (the race engine's; called once per race: a second call would count it twice).
   */
  recordRaceIn(tx: Db, raceId: number): Promise<void> {
    return recordRaceInStats(tx, raceId);
  }

  /** What keeps the first pages exact. */
  handlers(): EventHandlers {
    return this.firstPages.handlers;
  }

  /** The all-time board's first page of `limit` rows, as the answer sent to every visitor. */
  firstPage(limit: number): Promise<PreparedAnswer> {
    return this.firstPages.get(limit, () => this.#readAllTime({ page: 1, limit }));
  }

  /** The all-time board: every member who raced, by best race (laps, then best lap), then id. */
  allTime(query: LeaderboardPageQuery): Promise<LeaderboardResponse> {
    return this.#readAllTime(query);
  }

  /** Season 0 is all-time; season N its date range; an unknown season is refused. */
  async season(seasonId: number, query: LeaderboardPageQuery): Promise<LeaderboardResponse> {
    if (seasonId === ALL_TIME_SEASON) return this.allTime(query);
    const range = await findSeason(this.db, seasonId);
    if (!range)
      throw new DomainError('not_found', `Season ${seasonId} does not exist`, ERROR_KEYS.seasonNotFound);
    const [rows, totalCount] = await Promise.all([
      seasonPage(this.db, range, pageOf(query)),
      seasonCount(this.db, range),
    ]);
    return { data: rows.map(presentLeaderboardRow), totalCount };
  }

  /** The member's finished races, newest first. */
  async raceHistory(userId: number, query: LeaderboardPageQuery): Promise<RaceHistoryResponse> {
    const [rows, totalCount] = await Promise.all([
      raceHistoryPage(this.db, userId, pageOf(query)),
      raceHistoryCount(this.db, userId),
    ]);
    return { data: rows.map(presentHistoryRow), totalCount };
  }

  /**
   * The member's last finished race: their result and the podium (the home page shows it after a
   * race, issue 41). Only their own: a race they were not in is never told here.
   */
  async lastRace(userId: number): Promise<LastRaceResponse> {
    const [last] = await raceHistoryPage(this.db, userId, { limit: 1, offset: 0 });
    if (!last) return { race: null };
    return { race: presentLastRace(last, userId, await raceResults(this.db, last.raceId)) };
  }

  /** A finished race with every participant's laps; a race still running is not shown yet. */
  async race(raceId: number): Promise<RaceDetail> {
    const race = await findFinishedRace(this.db, raceId);
    if (!race) throw new DomainError('not_found', 'Race not found', ERROR_KEYS.raceNotFound);
    const [results, laps] = await Promise.all([raceResults(this.db, raceId), raceLapRows(this.db, raceId)]);
    return presentRaceDetail(race, results, laps);
  }

  async #readAllTime(query: LeaderboardPageQuery): Promise<LeaderboardResponse> {
    const [rows, totalCount] = await Promise.all([
      allTimePage(this.db, pageOf(query)),
      allTimeCount(this.db),
    ]);
    return { data: rows.map(presentLeaderboardRow), totalCount };
  }
}
