/** The signed-in member's own account: /me, profile, theme, password, tickets, deletion. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const accountRoutes: FastifyPluginAsyncZod = async () => {};
