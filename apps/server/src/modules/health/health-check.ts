/**
 * What the operators' probe reports (GET /health on the metrics port, scale-out/metrics/): the
 * database kind, the version, and whether the database answers now — with a short reason when it
 * does not (a code, never an address or a query). Not public since issue 39: the public
 * /api/health says only that the process answers.
 */
import type { HealthDetails } from '@telerace/protocol';
import type { Database } from '../../db/client.js';
import { unavailableReason } from '../../db/unavailable.js';

/** The probe answers quickly even when the database hangs: a slow database is reported, not waited for. */
const HEALTH_PING_TIMEOUT_MS = 1_000;
/** A probe may be polled often: at most one ping a second whatever the rate, the answer shared meanwhile. */
const HEALTH_STATUS_MAX_AGE_MS = 1_000;

class PingTimeout extends Error {
  override name = 'PingTimeout';
}

/** The database's ping, or a PingTimeout after `timeoutMs`. */
export async function pingWithin(database: Database, timeoutMs: number): Promise<void> {
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

async function databaseStatus(database: Database): Promise<HealthDetails['database']> {
  try {
    await pingWithin(database, HEALTH_PING_TIMEOUT_MS);
    return { status: 'reachable' };
  } catch (error) {
    const reason =
      error instanceof PingTimeout ? 'no answer within 1 s' : (unavailableReason(error) ?? 'query failed');
    return { status: 'unreachable', reason };
  }
}

export class HealthCheck {
  #latest: { at: number; status: Promise<HealthDetails['database']> } | null = null;

  constructor(private readonly deps: { database: Database; version: string }) {}

  async details(): Promise<HealthDetails> {
    return {
      status: 'ok',
      db: this.deps.database.kind,
      version: this.deps.version,
      database: await this.#databaseStatus(),
    };
  }

  #databaseStatus(): Promise<HealthDetails['database']> {
    const now = performance.now();
    if (!this.#latest || now - this.#latest.at >= HEALTH_STATUS_MAX_AGE_MS)
      this.#latest = { at: now, status: databaseStatus(this.deps.database) };
    return this.#latest.status;
  }
}
