/**
 * A Vite plugin (build time, in Node): how much JavaScript each public page downloads before it is
 * interactive (issue 45) — the first download (the entry and what it imports) and the page's own
 * files (route-preloads.ts: its chunk, what that imports, its English texts) — gzip level 9, as
 * `npm run bench -- web` counts them. Printed after each build, written to `first-load.json`, and
 * the build fails when a page is over FIRST_LOAD_LIMIT_KB: a ratchet at today's size, so that no
 * change makes the first load heavier unnoticed, on the way to the issue's goal (FIRST_LOAD_GOAL_KB).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { pagesOfRouter, routePreloadsOf } from './route-preloads';

export const FIRST_LOAD_FILE = 'first-load.json';
/** The issue's goal: at most this much JavaScript (KB gzip) before a public page is interactive. */
export const FIRST_LOAD_GOAL_KB = 90;
/** What the build accepts today (KB gzip): lowered as the first load gets lighter, never raised. */
export const FIRST_LOAD_LIMIT_KB = 202;

/** Each public page (issue 45) by the first segment of its path, as route-preloads.json keys them. */
export const PUBLIC_PAGE_SEGMENTS = [
  '',
  'leaderboards',
  'raffles',
  'races',
  'claim',
  'login',
  'signup',
  'forgot-password',
  'faq',
  'about',
  'privacy-policy',
  'terms-of-service',
] as const;

const KB = 1000;

interface Chunk {
  type: 'chunk';
  fileName: string;
  name: string;
  isEntry: boolean;
  facadeModuleId: string | null;
  imports: string[];
  code: string;
}

/** The files of the first download: the entry chunks and what they import, directly or not. */
function firstDownload(chunks: Chunk[]): string[] {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const found = new Set<string>();
  const pending = chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (found.has(file)) continue;
    found.add(file);
    pending.push(...(byFile.get(file)?.imports ?? []));
  }
  return [...found];
}

/** KB gzip of JavaScript each public page needs before it is interactive. */
export function firstLoadOf(chunks: Chunk[], routerSource: string): Record<string, number> {
  const gzipKb = new Map(
    chunks.map((chunk) => [chunk.fileName, gzipSync(chunk.code, { level: 9 }).length / KB]),
  );
  const initial = firstDownload(chunks);
  const preloads = routePreloadsOf(pagesOfRouter(routerSource), chunks);
  const sizes: Record<string, number> = {};
  for (const segment of PUBLIC_PAGE_SEGMENTS) {
    const files = [...initial, ...(preloads[segment] ?? []).map((file) => file.replace(/^\//, ''))];
    const total = files.reduce((sum, file) => sum + (gzipKb.get(file) ?? 0), 0);
    sizes[`/${segment}`] = Math.round(total * 10) / 10;
  }
  return sizes;
}

export function firstLoadBudget(): Plugin {
  return {
    name: 'telerace-first-load-budget',
    apply: 'build',
    async generateBundle(_options, bundle) {
      const source = await readFile(join(import.meta.dirname, 'router.tsx'), 'utf8');
      const chunks = Object.values(bundle).filter((item) => item.type === 'chunk') as unknown as Chunk[];
      const sizes = firstLoadOf(chunks, source);
      this.emitFile({
        type: 'asset',
        fileName: FIRST_LOAD_FILE,
        source: `${JSON.stringify(sizes, null, 2)}\n`,
      });
      const rows = Object.entries(sizes).map(
        ([page, kb]) => `  ${page.padEnd(20)} ${kb.toFixed(1).padStart(6)} KB`,
      );
      this.info(
        `JavaScript before a public page is interactive (gzip; goal ${FIRST_LOAD_GOAL_KB} KB, limit ${FIRST_LOAD_LIMIT_KB} KB):\n${rows.join('\n')}`,
      );
      const over = Object.entries(sizes).filter(([, kb]) => kb > FIRST_LOAD_LIMIT_KB);
      if (over.length > 0) {
        this.error(
          `first load over ${FIRST_LOAD_LIMIT_KB} KB gzip: ${over.map(([page, kb]) => `${page} ${kb} KB`).join(', ')} (src/first-load-budget.ts)`,
        );
      }
    },
  };
}
