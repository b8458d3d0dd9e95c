/**
 * The admin's race calls (spec §7 "/admin/race/*", race half): the state for the Race Control tab
 * (from memory), start, end and sync names to the lap counter. Start and end are audited.
 */
import { AdminRaceResponse, SyncLapCounterResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/actor.js';
import type { Services } from '../../module.js';

export const adminRaceRoutes =
  ({ races }: Pick<Services, 'races'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };

    app.get('/admin/race', { ...admin, schema: { response: { 200: AdminRaceResponse } } }, async () =>
      races.adminView(),
    );

    app.post(
      '/admin/race/start',
      { ...admin, schema: { response: { 200: AdminRaceResponse } } },
      async (request) => races.start(actorOf(request)),
    );

    app.post(
      '/admin/race/end',
      { ...admin, schema: { response: { 200: AdminRaceResponse } } },
      async (request) => races.end(actorOf(request)),
    );

    app.post(
      '/admin/race/sync-lap-counter',
      { ...admin, schema: { response: { 200: SyncLapCounterResponse } } },
      async (request) => ({ synced: await races.syncLapCounter(actorOf(request)) }),
    );
  };
