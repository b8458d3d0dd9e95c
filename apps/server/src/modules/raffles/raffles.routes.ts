/**
 * The public raffle (anyone may look, signed in or not): the open or last raffle, or one by id —
 * its summary, a page of its entries, and its whole record with everything needed to check its
 * draw (docs/raffle-fairness.md). Each answer is prepared once per change and sent as bytes with
 * an ETag (published-raffles.ts): a stream's whole audience polls them.
 */
import {
  type IdParams,
  RaffleEntriesPage,
  RaffleEntriesQuery,
  RaffleIdParams,
  RaffleRecord,
  RaffleSummary,
} from '@telerace/protocol';
import type { FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendPrepared } from '../../http/prepared-body.js';
import type { Services } from '../../module.js';

export const raffleRoutes =
  ({ raffles }: Pick<Services, 'raffles'>): FastifyPluginAsyncZod =>
  async (app) => {
    // Sent as the bytes they already are: typed without the zod provider (which expects the
    // object), and compressed once per change rather than by the compression plugin.
    const prepared = app.withTypeProvider<FastifyTypeProviderDefault>();

    prepared.get(
      '/raffles/current',
      { compress: false, schema: { response: { 200: RaffleSummary } } },
      async (request, reply) =>
        sendPrepared(request, reply, (await raffles.publicRaffle('current')).summary()),
    );

    prepared.get(
      '/raffles/:id',
      { compress: false, schema: { params: RaffleIdParams, response: { 200: RaffleSummary } } },
      async (request, reply) => {
        const { id } = request.params as IdParams;
        return sendPrepared(request, reply, (await raffles.publicRaffle(id)).summary());
      },
    );

    prepared.get(
      '/raffles/:id/entries',
      {
        compress: false,
        schema: {
          params: RaffleIdParams,
          querystring: RaffleEntriesQuery,
          response: { 200: RaffleEntriesPage },
        },
      },
      async (request, reply) => {
        const { id } = request.params as IdParams;
        const { page, limit } = request.query as RaffleEntriesQuery;
        return sendPrepared(request, reply, (await raffles.publicRaffle(id)).entries(page, limit));
      },
    );

    prepared.get(
      '/raffles/:id/record',
      { compress: false, schema: { params: RaffleIdParams, response: { 200: RaffleRecord } } },
      async (request, reply) => {
        const { id } = request.params as IdParams;
        reply.header('content-disposition', `attachment; filename="raffle-${id}.json"`);
        return sendPrepared(request, reply, (await raffles.publicRaffle(id)).record());
      },
    );
  };
