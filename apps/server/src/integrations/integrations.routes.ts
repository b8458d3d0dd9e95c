/** The admin's Integrations tab: each integration's state, entries per platform, recent events. */
import { AdminIntegrationsResponse, IntegrationIdParams, TestMessageRequest } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../http/actor.js';
import type { Services } from '../module.js';

export const integrationsRoutes =
  ({ integrations }: Pick<Services, 'integrations'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };

    app.get(
      '/admin/integrations',
      { ...admin, schema: { response: { 200: AdminIntegrationsResponse } } },
      async () => integrations.adminView(),
    );

    app.post(
      '/admin/integrations/:id/test-message',
      {
        ...admin,
        schema: {
          params: IntegrationIdParams,
          body: TestMessageRequest.optional(),
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        await integrations.sendTestMessage(actorOf(request), request.params.id, request.body?.message);
        return reply.code(204).send(null);
      },
    );
  };
