/**
 * A Vite plugin (it runs in Node at build time, never in the page): writes `route-preloads.json`,
 * for each page of the route table fetched when shown, the files its first visit fetches beyond the
 * first download — its chunk, the chunks that chunk imports (directly or not: a chain found only
 * as each file arrives costs a round trip per link), the later English texts and, for the long
 * documents, their texts. Beside it, `data-preloads.json`: the first answers of the pages
 * (data-preloads.ts). The server adds them to index.html as `modulepreload` links when the
 * document is opened at that page (apps/server/src/http/spa.ts), so a phone opening /login fetches
 * the login page alongside the main script instead of after it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { DATA_PRELOADS, DATA_PRELOADS_FILE } from './data-preloads';

export const ROUTE_PRELOADS_FILE = 'route-preloads.json';

/** What router.tsx declares: each lazily loaded page's route file, and the first path segment showing it. */
export function pagesOfRouter(source: string): { segment: string; file: string; document: boolean }[] {
  const loads = new Map<string, { file: string; document: boolean }>();
  for (const [, name = '', kind, file = ''] of source.matchAll(
    /const (\w+) = (laterPage|documentPage)\(\(\) => import\('\.\/routes\/(\w+)'\)\)/g,
  )) {
    loads.set(name, { file, document: kind === 'documentPage' });
  }
  const pages: { segment: string; file: string; document: boolean }[] = [];
  for (const [, path = '', name = ''] of source.matchAll(
    /path: '([^']+)',\s*\.\.\.(?:page|documentRoute)\((\w+),/g,
  )) {
    const load = loads.get(name);
    const segment = path.split('/')[0] ?? '';
    if (load && segment && !segment.startsWith(':')) pages.push({ segment, ...load });
  }
  return pages;
}

interface BuiltChunk {
  type: 'chunk';
  fileName: string;
  name: string;
  isEntry: boolean;
  facadeModuleId: string | null;
  imports: string[];
}

/** The files to preload per path segment, given the built chunks. */
export function routePreloadsOf(
  pages: ReturnType<typeof pagesOfRouter>,
  chunks: BuiltChunk[],
): Record<string, string[]> {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  /** The files and what they import, directly or not, in the order found. */
  const withImports = (files: string[]): string[] => {
    const found = new Set<string>();
    const pending = [...files].reverse();
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (found.has(file)) continue;
      found.add(file);
      pending.push(...[...(byFile.get(file)?.imports ?? [])].reverse());
    }
    return [...found];
  };
  // Already in the first download: the entry and what it imports (index.html preloads those itself).
  const initial = new Set(
    withImports(chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName)),
  );
  const named = (name: string) => chunks.find((chunk) => chunk.name === name)?.fileName;
  // A text part is imported through a small chunk of its own that re-exports the grouped texts:
  // both, or the re-export is found only once the page's code has run (one more round trip).
  const textsOf = (module: RegExp, name: string): (string | undefined)[] => {
    const facades = chunks.filter((c) => module.test(c.facadeModuleId?.replaceAll('\\', '/') ?? ''));
    return [...withImports(facades.map((c) => c.fileName)), named(name)];
  };
  const laterTexts = textsOf(/\/src\/i18n\/en\.json\?later$/, 'texts-later-en');
  const documentTexts = textsOf(/\/src\/i18n\/documents\/en\.json$/, 'texts-documents-en');
  const preloads: Record<string, string[]> = {};
  for (const page of pages) {
    const chunk = chunks.find((c) =>
      c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/src/routes/${page.file}.tsx`),
    );
    if (!chunk) continue;
    const files = [...withImports([chunk.fileName]), ...laterTexts, ...(page.document ? documentTexts : [])];
    preloads[page.segment] = [
      ...new Set(files.filter((file): file is string => file !== undefined && !initial.has(file))),
    ].map((file) => `/${file}`);
  }
  return preloads;
}

export function routePreloads(): Plugin {
  return {
    name: 'telerace-route-preloads',
    apply: 'build',
    async generateBundle(_options, bundle) {
      const source = await readFile(join(import.meta.dirname, 'router.tsx'), 'utf8');
      const chunks = Object.values(bundle).filter((item) => item.type === 'chunk') as unknown as BuiltChunk[];
      this.emitFile({
        type: 'asset',
        fileName: ROUTE_PRELOADS_FILE,
        source: `${JSON.stringify(routePreloadsOf(pagesOfRouter(source), chunks), null, 2)}\n`,
      });
      this.emitFile({
        type: 'asset',
        fileName: DATA_PRELOADS_FILE,
        source: `${JSON.stringify(DATA_PRELOADS, null, 2)}\n`,
      });
    },
  };
}
