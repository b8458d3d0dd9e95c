/**
 * Serves the built web app: real files from WEB_DIST_DIR, and index.html for every other GET path
 * (history fallback: the spec shows the home page for unknown paths, and the app's router draws
 * the others). Cache policy: hashed build output is immutable, index.html is always revalidated.
 * Compression: the build writes a brotli and a gzip copy beside each text file
 * (apps/web/src/precompress.ts), sent as they are to the browsers that take them; a file without
 * one is compressed on the fly by @fastify/compress, as before the copies existed.
 */
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { sendAnswer } from './cached-answer.js';
import { notFoundError } from './errors.js';
import { PageIndex } from './page-index.js';
import { PageRenderer } from './page-render.js';

const INDEX_FILE = 'index.html';
/** Vite's output folder for content-hashed files. */
const HASHED_ASSETS_DIR = 'assets';

export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
export const CACHE_REVALIDATE = 'no-cache';
/** Unhashed public files (favicon, promo video): may change on a deploy, so kept briefly. */
export const CACHE_SHORT = 'public, max-age=3600';

export const WEB_BUILD_MISSING_MESSAGE =
  'The web app is not built. Run `npm run build` at the repository root, then reload this page.\n';

/** The build's compressed copies: `app.js.br` is sent for `app.js`, with its headers. */
const COMPRESSED_COPY = /\.(br|gz)$/;

function cacheControlFor(sent: string): string {
  const file = sent.replace(COMPRESSED_COPY, '');
  if (file === INDEX_FILE) return CACHE_REVALIDATE;
  if (file.startsWith(`${HASHED_ASSETS_DIR}${sep}`)) return CACHE_IMMUTABLE;
  return CACHE_SHORT;
}

/**
 * Never a page of the web app: the API, and /metrics — served on METRICS_PORT only, so a scraper
 * pointed at the public port gets a 404 instead of the app's HTML.
 */
function isServerPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/metrics';
}

export interface SpaOptions {
  webDistDir: string;
  /** The server renderer's module (apps/web/dist-ssr/entry-server.js): public pages as HTML (page-render.ts). */
  rendererFile: string;
  clock: Clock;
}

export async function registerSpa(
  app: FastifyInstance,
  { webDistDir, rendererFile, clock }: SpaOptions,
): Promise<void> {
  await app.register(fastifyStatic, {
    root: webDistDir,
    // Routes are ours (below); the plugin only provides reply.sendFile with safe path handling.
    serve: false,
    // The build may appear after start-up (`npm run build` while the server runs).
    suppressWarning: true,
    cacheControl: false,
    dotfiles: 'ignore',
    index: false,
    // `<file>.br` or `<file>.gz` when the client takes it and the build made it, with
    // Content-Encoding, Vary: Accept-Encoding and that file's own ETag; @fastify/compress leaves an
    // encoded answer alone.
    preCompressed: true,
    setHeaders(reply, path) {
      reply.header('cache-control', cacheControlFor(relative(webDistDir, path)));
    },
  });

  // Checked on each request rather than once, so building the web app needs no server restart.
  const webBuildExists = () => existsSync(join(webDistDir, INDEX_FILE));

  // The handlers below return nothing on purpose: a returned reply is awaited by Fastify, and with
  // the file stream, compression and a not-found hop that piles up listeners on one response.
  const pageIndex = new PageIndex(webDistDir);
  const renderer = new PageRenderer(app, rendererFile, clock);
  app.addHook('onClose', () => renderer.close());
  const sendIndex = (request: FastifyRequest, reply: FastifyReply, path: string): void => {
    renderer
      .pageFor(request, pageIndex.templateFor(path))
      .then((drawn) => {
        const page = drawn ?? pageIndex.pageFor(path);
        if (page === null) reply.code(200).sendFile(INDEX_FILE);
        else return sendAnswer(request, reply.code(200), page);
      })
      .catch((error: unknown) => reply.send(error));
  };

  const sendBuildMissing = (reply: FastifyReply): void => {
    reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(WEB_BUILD_MISSING_MESSAGE);
  };

  // The web app's pages are no operations of the API reference.
  app.get(
    '/*',
    { schema: { hide: true } },
    (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply): void => {
      // Decoded by the router, without the leading slash.
      const path = `/${request.params['*']}`;
      // `/api` itself (the paths below it have their own catch-all) and `/metrics`.
      if (isServerPath(path)) throw notFoundError();
      if (!webBuildExists()) sendBuildMissing(reply);
      else if (path.endsWith('/')) sendIndex(request, reply, path);
      // A missing file ends in callNotFound(), i.e. the handler below.
      else reply.sendFile(path);
    },
  );

  app.setNotFoundHandler((request, reply): void => {
    const path = request.url.split('?', 1)[0] ?? '/';
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    // A missing hashed file is a stale page asking for an old build: answer 404, not HTML.
    if (!isRead || isServerPath(path) || path.startsWith(`/${HASHED_ASSETS_DIR}/`)) throw notFoundError();
    if (webBuildExists()) sendIndex(request, reply, path);
    else sendBuildMissing(reply);
  });
}
