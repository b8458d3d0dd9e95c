/**
 * The failure a service reports to whoever called it: what kind of refusal it is and the i18n key
 * of its message, never an HTTP status. The edges map it: `http/errors.ts` to a status and the
 * `{ error, errorKey }` body, the socket kit to `{ type: 'error', error, errorKey }`. Its message
 * is written for the client.
 */
import type { ErrorKey } from '@telerace/protocol';

export type DomainErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable';

export interface DomainErrorOptions {
  /** For `rate_limited`: when trying again can succeed. */
  retryAfterSeconds?: number;
  /** Facts about the failure for the log (never sent to the client). */
  details?: Record<string, unknown>;
}

export class DomainError extends Error {
  readonly retryAfterSeconds: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errorKey: ErrorKey,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details;
  }
}

/** "Try again in N minutes": the refusal of a per-hour budget spent (wrong passwords, codes…). */
export function minutesToWait(waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Seconds for a Retry-After header: at least one. */
export function secondsToWait(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
