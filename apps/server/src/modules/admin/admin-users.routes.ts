/** Admin calls on members: list, ban, admin role, ticket adjustment, deletion; login history. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const adminUserRoutes: FastifyPluginAsyncZod = async () => {};
