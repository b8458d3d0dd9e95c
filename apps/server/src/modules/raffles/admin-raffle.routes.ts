/**
 * The admin's raffle calls (spec §7 "/admin/race/*", raffle half): open, add an entry by hand,
 * draw, abort, clear the expired wins, and the Race Control tab's view. Every change is audited.
 */
import {
  AdminRaffleResponse,
  ClearPendingWinsResponse,
  RaffleEntryRequest,
  StartRaffleRequest,
} from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/actor.js';
import type { Services } from '../../module.js';

export const adminRaffleRoutes =
  ({ raffles }: Pick<Services, 'raffles'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };
    const view = { response: { 200: AdminRaffleResponse } };

    app.get('/admin/raffle', { ...admin, schema: view }, async () => raffles.adminView());

    app.post(
      '/admin/race/start-raffle',
      { ...admin, schema: { ...view, body: StartRaffleRequest } },
      async (request) => raffles.start(actorOf(request), request.body.racers),
    );

    app.post(
      '/admin/race/raffle-entries',
      { ...admin, schema: { ...view, body: RaffleEntryRequest } },
      async (request) => raffles.addEntry(actorOf(request), request.body),
    );

    app.post('/admin/race/draw-winners', { ...admin, schema: view }, async (request) =>
      raffles.draw(actorOf(request)),
    );

    app.post('/admin/race/abort-raffle', { ...admin, schema: view }, async (request) =>
      raffles.abort(actorOf(request)),
    );

    app.post(
      '/admin/race/clear-pending-wins',
      { ...admin, schema: { response: { 200: ClearPendingWinsResponse } } },
      async (request) => ({ cleared: await raffles.clearExpiredWins(actorOf(request)) }),
    );
  };
