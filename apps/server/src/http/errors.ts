/**
 * The one error handler: every failure leaves the server as `{ error, errorKey? }` (ErrorBody)
 * with a status that means something. 5xx bodies are always generic, so no stack, SQL or
 * message from inside the server ever reaches a client; the details go to the log instead.
 */
import { ERROR_KEYS, type ErrorBody, type ErrorKey } from '@telerace/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isStorageFull } from '../db/unavailable.js';
import { DomainError, type DomainErrorKind } from '../domain-error.js';

/**
 * Thrown by our own code for an expected failure that only the HTTP edge knows (the API rate
 * limit, the member check, bot checks); its message is written for the client.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errorKey?: ErrorKey,
    /** For a 429: when trying again can succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notFoundError = (): HttpError => new HttpError(404, 'Not found', ERROR_KEYS.notFound);

/**
 * While the database is away (killed, restarting, failing over) every request that needs it is
 * refused at once with this, not a 500: the same request succeeds once it is back.
 */
const DATABASE_UNAVAILABLE_BODY: ErrorBody = {
  error: 'The database is unavailable for a moment',
  errorKey: ERROR_KEYS.databaseUnavailable,
};
/** A restarted PostgreSQL accepts connections within seconds (docs/reliability.md). */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** The disk is full: nothing was saved, and an operator has to make room. */
const STORAGE_FULL_BODY: ErrorBody = {
  error: 'The server has no room left to save this; nothing was changed',
  errorKey: ERROR_KEYS.storageFull,
};
const STORAGE_RETRY_AFTER_SECONDS = 60;

export const INTERNAL_ERROR_BODY: ErrorBody = {
  error: 'Internal server error',
  errorKey: ERROR_KEYS.internal,
};

const KEY_BY_STATUS: Partial<Record<number, ErrorKey>> = {
  400: ERROR_KEYS.validation,
  401: ERROR_KEYS.unauthorized,
  403: ERROR_KEYS.forbidden,
  404: ERROR_KEYS.notFound,
  429: ERROR_KEYS.tooManyRequests,
};

/** The status each kind of domain refusal leaves the server with. */
const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
};

/** Fastify's name for each request part, as a client would call it. */
const PART_NAMES: Record<string, string> = { querystring: 'query' };

/** `body.email: Invalid email` — names the field so a client (and a developer) can fix the request. */
function validationMessage(error: FastifyError): string {
  const part = PART_NAMES[error.validationContext ?? ''] ?? error.validationContext ?? 'request';
  return (error.validation ?? [])
    .map((issue) => {
      const field = issue.instancePath.split('/').filter(Boolean).join('.');
      return `${field ? `${part}.${field}` : part}: ${issue.message ?? 'Invalid value'}`;
    })
    .join('; ');
}

/** The one place Retry-After is set: from the refusal that says when trying again can succeed. */
function setRetryAfter(reply: FastifyReply, error: { retryAfterSeconds?: number | undefined }): void {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
}

function statusOf(error: FastifyError): number {
  const status = error.statusCode;
  return typeof status === 'number' && status >= 400 && status <= 599 ? status : 500;
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.validation) {
    const message = validationMessage(error);
    request.log.info({ req: request, validation: message }, 'request validation failed');
    reply.code(400).send({ error: message, errorKey: ERROR_KEYS.validation } satisfies ErrorBody);
    return;
  }
  if (error instanceof DomainError) {
    const status = STATUS_OF_KIND[error.kind];
    setRetryAfter(reply, error);
    request.log.info(
      { req: request, status, error: error.message, details: error.details },
      'request rejected',
    );
    reply.code(status).send({ error: error.message, errorKey: error.errorKey } satisfies ErrorBody);
    return;
  }
  if (isStorageFull(error)) {
    request.log.error({ req: request }, 'request refused: the disk is full');
    reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS));
    reply.code(503).send(STORAGE_FULL_BODY);
    return;
  }
  if (isDatabaseUnavailable(error)) {
    // One line per refused request at warn: the cause is logged once by the pool (app.ts).
    request.log.warn({ req: request }, 'request refused: the database is unavailable');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    reply.code(503).send(DATABASE_UNAVAILABLE_BODY);
    return;
  }
  const status = statusOf(error);
  if (status >= 500) {
    request.log.error({ req: request, err: error }, 'request failed');
    reply.code(status).send(INTERNAL_ERROR_BODY);
    return;
  }
  const errorKey = error instanceof HttpError ? error.errorKey : KEY_BY_STATUS[status];
  if (error instanceof HttpError) setRetryAfter(reply, error);
  request.log.info({ req: request, status, error: error.message }, 'request rejected');
  reply.code(status).send({ error: error.message, ...(errorKey ? { errorKey } : {}) } satisfies ErrorBody);
}
