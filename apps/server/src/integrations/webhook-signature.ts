/**
 * Signed webhooks (Twitch EventSub, tips): the signature is an HMAC-SHA256 of the raw body, so
 * the routes keep the bytes as they arrived (`rawJsonBody`) and compare in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http/errors.js';

/** Whether `signatureHex` (hex, any case) is HMAC-SHA256(secret, payload). */
export function isValidHmacSha256(
  secret: string,
  payload: Buffer | string,
  signatureHex: string | undefined,
): boolean {
  if (!signatureHex || !/^[0-9a-fA-F]{64}$/.test(signatureHex)) return false;
  const expected = createHmac('sha256', secret).update(payload).digest();
  return timingSafeEqual(expected, Buffer.from(signatureHex, 'hex'));
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received, on routes registered after `rawJsonBody` (webhooks). */
    rawBody?: Buffer;
  }
}

/**
 * In this plugin scope only: JSON bodies are parsed from a kept copy of their bytes (the HMAC is
 * over those bytes, not over a re-serialization). A body that is not JSON is a 400.
 */
export function rawJsonBody(app: FastifyInstance, maxBytes = 64 * 1024): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: maxBytes },
    (request, body, done) => {
      const bytes = body as Buffer;
      request.rawBody = bytes;
      try {
        done(null, bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8')));
      } catch {
        done(new HttpError(400, 'The body is not valid JSON.', ERROR_KEYS.validation), undefined);
      }
    },
  );
}
