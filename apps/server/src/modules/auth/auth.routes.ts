/** Sign-up, log-in, sessions (refresh rotation), log-out, password reset. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const authRoutes: FastifyPluginAsyncZod = async () => {};
