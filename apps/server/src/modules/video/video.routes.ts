/** Video for members: the ICE servers (STUN, short-lived TURN credentials) their browser uses. */
import { IceServersResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import { iceServersFor } from './turn-credentials.js';

export const videoRoutes =
  (config: Config): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/video/ice-servers',
      { config: { access: 'member' }, schema: { response: { 200: IceServersResponse } } },
      async (request, reply) => {
        // Personal, short-lived credentials: never kept by a cache.
        reply.header('cache-control', 'no-store');
        return { iceServers: iceServersFor(config, request.currentUser.id) };
      },
    );
  };
