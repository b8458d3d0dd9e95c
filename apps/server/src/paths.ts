/**
 * Locations inside the server package. This file sits one folder below apps/server, exactly like
 * the bundle dist/main.js, so the same relative URLs work under tsx/vitest and from the bundle.
 * Keep it at this depth.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const SERVER_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MIGRATIONS_DIR = fileURLToPath(new URL('../drizzle', import.meta.url));
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** The web build's page renderer (issue 45): `dist-ssr/entry-server.js` beside the web app's folder. */
export function pageRendererFile(webDistDir: string): string {
  return join(webDistDir, '..', 'dist-ssr', 'entry-server.js');
}

/** The server's package version, read from its package.json (present beside the bundle too). */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The drive channel worker's entry (modules/control/drive-channel-thread.ts): its TypeScript
 * running from the sources (tsx, Vitest), the bundle's own file beside dist/main.js once built.
 */
export const DRIVE_CHANNEL_WORKER: URL = import.meta.url.endsWith('.ts')
  ? new URL('./modules/control/drive-channel-worker.ts', import.meta.url)
  : new URL('./drive-channel-worker.js', import.meta.url);

/** The video ingest worker's entry (modules/video/ingest/video-ingest.ts), like the drive channel's. */
export const VIDEO_INGEST_WORKER: URL = import.meta.url.endsWith('.ts')
  ? new URL('./modules/video/ingest/ingest-worker.ts', import.meta.url)
  : new URL('./ingest-worker.js', import.meta.url);

/** The page renderer's thread (http/page-render-worker.ts), like the drive channel's. */
export const PAGE_RENDER_WORKER: URL = import.meta.url.endsWith('.ts')
  ? new URL('./http/page-render-worker.ts', import.meta.url)
  : new URL('./page-render-worker.js', import.meta.url);

/**
 * A worker from its entry: the bundle's own file once built, or, running from the sources (tsx,
 * Vitest), its TypeScript through tsx's API — a worker does not inherit the parent thread's loader.
 */
export function startModuleWorker(file: URL): Worker {
  if (!file.pathname.endsWith('.ts')) return new Worker(file);
  const href = JSON.stringify(file.href);
  return new Worker(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${href}, ${href}))`, {
    eval: true,
  });
}
