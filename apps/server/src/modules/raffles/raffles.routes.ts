/**
 * The public raffle (anyone may look, signed in or not): the open or last raffle, or one by id,
 * with everything needed to check its draw (docs/raffle-fairness.md).
 */
import { RaffleIdParams, RafflePublic } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const raffleRoutes: FastifyPluginAsyncZod = async (app) => {
  const raffles = app.raffles;

  app.get('/raffles/current', { schema: { response: { 200: RafflePublic } } }, async () =>
    raffles.currentRaffle(),
  );

  app.get(
    '/raffles/:id',
    { schema: { params: RaffleIdParams, response: { 200: RafflePublic } } },
    async (request) => raffles.publicRaffle(request.params.id),
  );
};
