/**
 * Probes. `/api/health`: the process answers — only that: it is public, and what runs behind it
 * (the database kind, the version, why the database is away) is for operators, on the metrics
 * port (health-check.ts). `/api/ready`: it can serve users — migrations applied and the database
 * answering — so a load balancer or a start script waits for it.
 */
import { ERROR_KEYS, ErrorBody, HealthResponse, ReadyResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Database } from '../../db/client.js';
import { pingWithin } from './health-check.js';

export interface HealthRoutesOptions {
  database: Database;
  /** True once the start-up migrations have been applied. */
  isMigrated: () => boolean;
}

/** A probe must answer quickly even when the database hangs. */
const PING_TIMEOUT_MS = 3_000;

const NOT_READY: ErrorBody = { error: 'Not ready', errorKey: ERROR_KEYS.notReady };

export const healthRoutes =
  (options: HealthRoutesOptions): FastifyPluginAsyncZod =>
  async (app) => {
    // Liveness: always 200 while the process answers (load balancers, the benches' bare baseline).
    app.get('/health', { schema: { response: { 200: HealthResponse } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get(
      '/ready',
      { schema: { response: { 200: ReadyResponse, 503: ErrorBody } } },
      async (request, reply) => {
        if (!options.isMigrated()) return reply.code(503).send(NOT_READY);
        try {
          await pingWithin(options.database, PING_TIMEOUT_MS);
        } catch (error) {
          request.log.warn({ err: error }, 'database unreachable');
          return reply.code(503).send(NOT_READY);
        }
        return { ready: true };
      },
    );
  };
