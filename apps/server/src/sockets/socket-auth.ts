/** Checks shared by the socket gateways, run before the upgrade (a refusal is a plain HTTP error). */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.js';

/**
 * Browser sockets must come from our own pages (no cross-site WebSocket hijacking): the Origin
 * header is PUBLIC_URL's origin and nothing else. Not "the address the request was made to": a
 * page on a rebound domain (DNS rebinding: evil.example resolving to this server) sends Host and
 * Origin both evil.example, which would pass. Set PUBLIC_URL to the address the browsers use
 * (`npm run dev` sets the Vite dev server's).
 */
export function assertOwnOrigin(request: FastifyRequest, publicUrl: string): void {
  if (request.headers.origin !== new URL(publicUrl).origin) {
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
