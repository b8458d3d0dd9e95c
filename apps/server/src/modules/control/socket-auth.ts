/** Checks shared by the socket gateways, run before the upgrade (a refusal is a plain HTTP error). */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';

/**
 * Browser sockets must come from our own pages (no cross-site WebSocket hijacking): the Origin
 * header is PUBLIC_URL's origin, or the very address the request was made to (someone who opened
 * http://127.0.0.1:8080 instead of http://localhost:8080 — still the same site).
 */
export function assertOwnOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  const sameSite = origin !== undefined && origin === `${request.protocol}://${request.host}`;
  if (origin !== new URL(publicUrl).origin && !sameSite) {
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
