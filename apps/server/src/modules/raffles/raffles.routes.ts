/**
 * The public raffle (anyone may look, signed in or not): the open or last raffle, or one by id —
 * its summary, a page of its entries, and its whole record with everything needed to check its
 * draw (docs/raffle-fairness.md). Each answer is made once per change (published-raffles.ts) and
 * sent as bytes with an ETag (http/cached-answer.ts): a stream's whole audience polls them.
 */
import {
  RaffleEntriesPage,
  RaffleEntriesQuery,
  RaffleIdParams,
  RaffleRecord,
  RaffleSummary,
} from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { cachedAnswer, NEW_VALUE, sendAnswer } from '../../http/cached-answer.js';
import type { Services } from '../../module.js';

export const raffleRoutes =
  ({ raffles }: Pick<Services, 'raffles'>): FastifyPluginAsyncZod =>
  async (app) => {
    // Public, polled by the whole audience: revalidated with an ETag, and compressed once per
    // change rather than by the compression plugin (`compress: false`).
    const summaries = cachedAnswer(RaffleSummary, NEW_VALUE, { revalidate: true });
    const pages = cachedAnswer(RaffleEntriesPage, NEW_VALUE, { revalidate: true });
    // The whole record (tens of thousands of entries) is remade up to once a second while the
    // raffle is open: sent as its presenter made it, not checked again on the event loop each time.
    const records = cachedAnswer(RaffleRecord, NEW_VALUE, { revalidate: true, unchecked: true });

    app.get(
      '/raffles/current',
      { compress: false, schema: { response: { 200: RaffleSummary } } },
      async (request, reply) =>
        sendAnswer(request, reply, summaries.of((await raffles.publicRaffle('current')).summary())),
    );

    app.get(
      '/raffles/:id',
      { compress: false, schema: { params: RaffleIdParams, response: { 200: RaffleSummary } } },
      async (request, reply) =>
        sendAnswer(request, reply, summaries.of((await raffles.publicRaffle(request.params.id)).summary())),
    );

    app.get(
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
        const { page, limit } = request.query;
        const published = await raffles.publicRaffle(request.params.id);
        return sendAnswer(request, reply, pages.of(published.entries(page, limit)));
      },
    );

    app.get(
      '/raffles/:id/record',
      { compress: false, schema: { params: RaffleIdParams, response: { 200: RaffleRecord } } },
      async (request, reply) => {
        const { id } = request.params;
        reply.header('content-disposition', `attachment; filename="raffle-${id}.json"`);
        return sendAnswer(request, reply, records.of((await raffles.publicRaffle(id)).record()));
      },
    );
  };
