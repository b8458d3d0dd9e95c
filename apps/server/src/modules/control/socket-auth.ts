/** Checks shared by the socket gateways, run before the upgrade (a refusal is a plain HTTP error). */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';

/** Browser sockets must come from our own pages: the Origin header equals PUBLIC_URL's origin. */
export function assertOwnOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  if (origin !== new URL(publicUrl).origin) {
    throw new HttpError(403, 'Origin not allowed', ERROR_KEYS.forbidden);
  }
}

export function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const query = request.query as Record<string, unknown>;
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    result[key] = typeof value === 'string' ? value : undefined;
  }
  return result;
}
