/** Video for members: the ICE servers (STUN, short-lived TURN credentials) their browser uses. */
import { IceServersResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { iceServersFor } from './turn-credentials.js';

export const videoRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/video/ice-servers',
    { config: { access: 'member' }, schema: { response: { 200: IceServersResponse } } },
    async (request, reply) => {
      // Personal, short-lived credentials: never kept by a cache.
      reply.header('cache-control', 'no-store');
      return { iceServers: iceServersFor(app.config, request.currentUser.id) };
    },
  );
};
