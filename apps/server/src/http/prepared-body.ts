/**
 * An answer prepared once and sent as the bytes it already is to every request that asks for
 * it: with an ETag (a client that has it gets a 304 and no body), and compressed once per
 * encoding — off the event loop, so a large answer (a raffle's 20,000 entries) never holds a
 * driven car's messages. For answers whose owner knows when they change (the public raffle,
 * modules/raffles/published-raffles.ts; the web app's index.html with a page's preloads,
 * page-index.ts); `CachedJson` is for answers compared value by value.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptedEncoding,
  type BodyEncoding,
  COMPRESS_THRESHOLD_BYTES,
  JSON_CONTENT_TYPE,
} from './cached-json.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export class PreparedBody {
  /** A strong validator: the hash of the bytes, so it is the same on every instance and after a restart. */
  readonly etag: string;
  readonly bytes: number;
  readonly #encoded = new Map<BodyEncoding, Promise<Buffer>>();

  constructor(
    readonly text: string,
    readonly contentType: string = JSON_CONTENT_TYPE,
  ) {
    this.bytes = Buffer.byteLength(text);
    this.etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
  }

  static of(value: unknown): PreparedBody {
    return new PreparedBody(JSON.stringify(value));
  }

  /** The body compressed in `encoding`, made once (the same quality as the app's on-the-fly compression). */
  encoded(encoding: BodyEncoding): Promise<Buffer> {
    let encoded = this.#encoded.get(encoding);
    if (!encoded) {
      encoded =
        encoding === 'br'
          ? brotli(this.text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } })
          : gzipped(this.text);
      this.#encoded.set(encoding, encoded);
    }
    return encoded;
  }
}

/** Whether an `If-None-Match` header names this ETag (or `*`); weak forms match too (RFC 9110 §13.1.2). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * Sends a prepared body: 304 when the client already has it, else its bytes in the best encoding
 * the client takes. Public answers are kept by browsers and proxies but checked again each time
 * (`no-cache`), so a poll costs a 304 while nothing changed.
 */
export async function sendPrepared(
  request: FastifyRequest,
  reply: FastifyReply,
  body: PreparedBody,
): Promise<string | Buffer | undefined> {
  reply
    .header('etag', body.etag)
    .header('cache-control', 'no-cache')
    .header('vary', 'accept-encoding')
    .type(body.contentType);
  if (matchesEtag(request.headers['if-none-match'], body.etag)) {
    reply.code(304);
    return undefined;
  }
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  if (encoding === null || body.bytes < COMPRESS_THRESHOLD_BYTES) return body.text;
  reply.header('content-encoding', encoding);
  return body.encoded(encoding);
}
