/**
 * Probes. `/api/health`: the process answers (and which database it uses). `/api/ready`: it can
 * serve users — migrations applied and the database answering — so a load balancer or a start
 * script waits for it.
 */
import { ERROR_KEYS, ErrorBody, HealthResponse, ReadyResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Database } from '../../db/client.js';
import { unavailableReason } from '../../db/unavailable.js';

export interface HealthRoutesOptions {
  database: Database;
  version: string;
  /** True once the start-up migrations have been applied. */
  isMigrated: () => boolean;
}

/** A probe must answer quickly even when the database hangs. */
const PING_TIMEOUT_MS = 3_000;
/** Liveness answers sooner still: a slow database is reported, not waited for. */
const HEALTH_PING_TIMEOUT_MS = 1_000;

class PingTimeout extends Error {
  override name = 'PingTimeout';
}

const NOT_READY: ErrorBody = { error: 'Not ready', errorKey: ERROR_KEYS.notReady };

async function pingWithin(database: Database, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PingTimeout(`database ping timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([database.ping(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function databaseStatus(database: Database): Promise<HealthResponse['database']> {
  try {
    await pingWithin(database, HEALTH_PING_TIMEOUT_MS);
    return { status: 'reachable' };
  } catch (error) {
    const reason =
      error instanceof PingTimeout ? 'no answer within 1 s' : (unavailableReason(error) ?? 'query failed');
    return { status: 'unreachable', reason };
  }
}

/**
 * /api/health is polled (load balancers, the benches' bare baseline): at most one ping a second
 * whatever the rate, the answer shared meanwhile.
 */
const HEALTH_STATUS_MAX_AGE_MS = 1_000;

export const healthRoutes: FastifyPluginAsyncZod<HealthRoutesOptions> = async (app, options) => {
  let latest: { at: number; status: Promise<HealthResponse['database']> } | null = null;
  const currentDatabaseStatus = () => {
    const now = performance.now();
    if (!latest || now - latest.at >= HEALTH_STATUS_MAX_AGE_MS) {
      latest = { at: now, status: databaseStatus(options.database) };
    }
    return latest.status;
  };

  // Liveness: always 200 while the process answers; says why the database is not usable.
  app.get('/health', { schema: { response: { 200: HealthResponse } } }, async () => ({
    status: 'ok' as const,
    db: options.database.kind,
    version: options.version,
    database: await currentDatabaseStatus(),
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
