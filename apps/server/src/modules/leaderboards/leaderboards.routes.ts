/**
 * The leaderboards and a finished race's page (public: anyone may look), and the signed-in
 * member's own race history and last race.
 */
import {
  LastRaceResponse,
  LeaderboardPageQuery,
  LeaderboardResponse,
  PAGE_SIZES,
  RaceDetail,
  RaceHistoryResponse,
  RaceIdParams,
  SeasonParams,
} from '@telerace/protocol';
import type { FastifyReply, FastifyRequest, FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CachedJson, JSON_CONTENT_TYPE } from '../../http/cached-json.js';
import type { Services } from '../../module.js';

export const leaderboardRoutes =
  ({ leaderboards }: Pick<Services, 'leaderboards'>): FastifyPluginAsyncZod =>
  async (app) => {
    const member = { config: { access: 'member' as const } };

    // The first pages are the same answer for every visitor and come from memory: serialized (and
    // compressed) once per change, one serializer per page size, and sent as the bytes they already
    // are (so typed without the zod provider; @fastify/compress leaves a body with its
    // Content-Encoding alone and compresses the other pages as usual).
    const firstPageJson = new Map(
      PAGE_SIZES.map((size) => [size as number, new CachedJson(LeaderboardResponse)]),
    );
    const board = app.withTypeProvider<FastifyTypeProviderDefault>();
    async function answer(
      request: FastifyRequest,
      reply: FastifyReply,
      value: LeaderboardResponse,
      limit: number,
    ) {
      const json = firstPageJson.get(limit);
      if (!json) return value;
      const { body, encoding } = json.body(value, request.headers['accept-encoding']);
      reply.type(JSON_CONTENT_TYPE).header('vary', 'accept-encoding');
      if (encoding) reply.header('content-encoding', encoding);
      return body;
    }

    board.get(
      '/leaderboards/all-time',
      { schema: { querystring: LeaderboardPageQuery, response: { 200: LeaderboardResponse } } },
      async (request, reply) => {
        const query = request.query as LeaderboardPageQuery;
        const value = await leaderboards.allTime(query);
        return query.page === 1 ? answer(request, reply, value, query.limit) : value;
      },
    );

    board.get(
      '/leaderboards/season/:season',
      {
        schema: {
          params: SeasonParams,
          querystring: LeaderboardPageQuery,
          response: { 200: LeaderboardResponse },
        },
      },
      async (request, reply) => {
        const query = request.query as LeaderboardPageQuery;
        const { season } = request.params as { season: number };
        const value = await leaderboards.season(season, query);
        return season === 0 && query.page === 1 ? answer(request, reply, value, query.limit) : value;
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
