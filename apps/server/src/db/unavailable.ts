/**
 * Whether a failure means "the database is not there right now" (killed, restarting, failing
 * over, unreachable) rather than "this query is wrong". The first is the caller's cue for a 503
 * with Retry-After (http/errors.ts) — the same request will succeed once the database is back —
 * and /api/health's reason; the second stays a 500 with the details in the log. A full disk is a
 * third case with its own answer (`isStorageFull`).
 */

/** How deep `cause` chains are followed (DrizzleQueryError wraps the driver's error). */
const MAX_CAUSES = 5;

/** The network's words for a server that is not (or no longer) there. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not accepting yet: class 08 (connection exception),
 * admin_shutdown (57P01: pg_terminate_backend, a fast shutdown), crash_shutdown (57P02: another
 * backend crashed, or the postmaster died), cannot_connect_now (57P03: starting up or in recovery).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3])$/;

/** What pg says, without a code, when its connection is gone or never came. */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
];

function causesOf(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < MAX_CAUSES) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

/**
 * A short reason naming why the database is unavailable (a code, never an address or a query:
 * /api/health is public), or null when the error is something else.
 */
export function unavailableReason(error: unknown): string | null {
  for (const link of causesOf(error)) {
    const code = (link as Error & { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return code;
    if (PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(link.message))) return 'connection lost';
  }
  return null;
}

export const isDatabaseUnavailable = (error: unknown): boolean => unavailableReason(error) !== null;

/**
 * The disk under the database is full (SQLSTATE 53100 disk_full, or a file write's ENOSPC): the
 * write was refused whole — PostgreSQL and PGlite keep what was written before — and succeeds
 * again once space returns.
 */
export function isStorageFull(error: unknown): boolean {
  return causesOf(error).some((link) => {
    const code = (link as Error & { code?: unknown }).code;
    return code === '53100' || code === 'ENOSPC';
  });
}
