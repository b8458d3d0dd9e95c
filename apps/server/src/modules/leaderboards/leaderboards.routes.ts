/**
 * The leaderboards and a finished race's page (public: anyone may look), and the signed-in
 * member's own race history and last race.
 */
import {
  LastRaceResponse,
  LeaderboardPageQuery,
  LeaderboardResponse,
  RaceDetail,
  RaceHistoryResponse,
  RaceIdParams,
  SeasonParams,
} from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendAnswer } from '../../http/cached-answer.js';
import type { Services } from '../../module.js';
import { ALL_TIME_SEASON } from './leaderboards.service.js';

export const leaderboardRoutes =
  ({ leaderboards }: Pick<Services, 'leaderboards'>): FastifyPluginAsyncZod =>
  async (app) => {
    const member = { config: { access: 'member' as const } };

    // The first pages are the same answer for every visitor: sent from memory as the bytes they
    // already are (leaderboards.service.ts `firstPages`; @fastify/compress leaves a body with its
    // Content-Encoding alone and compresses the other pages as usual).
    app.get(
      '/leaderboards/all-time',
      { schema: { querystring: LeaderboardPageQuery, response: { 200: LeaderboardResponse } } },
      async (request, reply) => {
        const { query } = request;
        if (query.page === 1) return sendAnswer(request, reply, await leaderboards.firstPage(query.limit));
        return leaderboards.allTime(query);
      },
    );

    app.get(
      '/leaderboards/season/:season',
      {
        schema: {
          params: SeasonParams,
          querystring: LeaderboardPageQuery,
          response: { 200: LeaderboardResponse },
        },
      },
      async (request, reply) => {
        const { query } = request;
        const { season } = request.params;
        if (season === ALL_TIME_SEASON && query.page === 1)
          return sendAnswer(request, reply, await leaderboards.firstPage(query.limit));
        return leaderboards.season(season, query);
      },
    );

    app.get(
      '/me/race-history',
      { ...member, schema: { querystring: LeaderboardPageQuery, response: { 200: RaceHistoryResponse } } },
      async (request) => leaderboards.raceHistory(request.currentUser.id, request.query),
    );

    app.get(
      '/me/last-race',
      { ...member, schema: { response: { 200: LastRaceResponse } } },
      async (request) => leaderboards.lastRace(request.currentUser.id),
    );

    app.get(
      '/races/:id',
      { schema: { params: RaceIdParams, response: { 200: RaceDetail } } },
      async (request) => leaderboards.race(request.params.id),
    );
  };
