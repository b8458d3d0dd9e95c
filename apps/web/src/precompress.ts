/**
 * A Vite plugin (it runs in Node at build time, never in the page): once the build is written,
 * compresses each text file of it once, at the strongest settings, into `<file>.br` (brotli 11)
 * and `<file>.gz` (gzip 9) beside it. The server sends those to browsers that accept them
 * (apps/server/src/http/spa.ts, @fastify/static's `preCompressed`) instead of compressing the same
 * file again on every download: brotli at the quality it could afford per request (4) cost 43 ms
 * of CPU per download of the React chunk and made a larger file (docs/performance.md).
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Text the browser downloads; images, video and fonts are compressed already. */
const COMPRESSIBLE = new Set([
  '.js',
  '.mjs',
  '.css',
  '.html',
  '.svg',
  '.json',
  '.txt',
  '.xml',
  '.webmanifest',
]);
/** Below this, a file goes as it is (the server's compression threshold, COMPRESS_THRESHOLD_BYTES). */
export const MIN_BYTES = 1024;

/** The encoded copies of `content` worth keeping: each only when smaller than the file itself. */
export async function encodedCopies(content: Buffer): Promise<{ suffix: '.br' | '.gz'; bytes: Buffer }[]> {
  const [br, gz] = await Promise.all([
    brotli(content, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    }),
    gzipped(content, { level: zlib.Z_BEST_COMPRESSION }),
  ]);
  return [
    { suffix: '.br' as const, bytes: br },
    { suffix: '.gz' as const, bytes: gz },
  ].filter((copy) => copy.bytes.length < content.length);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Writes the encoded copies of every compressible file of `dir` of at least MIN_BYTES. */
export async function precompressFolder(dir: string): Promise<{ files: number; bytes: number; br: number }> {
  const files = (await filesUnder(dir)).filter((file) => COMPRESSIBLE.has(extname(file)));
  const totals = { files: 0, bytes: 0, br: 0 };
  await Promise.all(
    files.map(async (file) => {
      if ((await stat(file)).size < MIN_BYTES) return;
      const content = await readFile(file);
      const copies = await encodedCopies(content);
      await Promise.all(copies.map((copy) => writeFile(`${file}${copy.suffix}`, copy.bytes)));
      totals.files++;
      totals.bytes += content.length;
      totals.br += copies.find((copy) => copy.suffix === '.br')?.bytes.length ?? content.length;
    }),
  );
  return totals;
}

export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'telerace-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    // After every plugin wrote its files (route-preloads.json among them).
    closeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        const { files, bytes, br } = await precompressFolder(outDir);
        this.info(
          `${files} files precompressed (brotli ${Math.round(br / 1024)} KiB of ${Math.round(bytes / 1024)} KiB)`,
        );
      },
    },
  };
}
