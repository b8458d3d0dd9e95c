/**
 * A Vite plugin (it runs in Node at build time, never in the page): writes `route-preloads.json`,
 * for each page of the route table fetched when shown, the files its first visit fetches beyond the
 * first download — its chunk, the chunks that chunk imports, the later English texts and, for the
 * long documents, their texts. The server adds them to index.html as `modulepreload` links when the
 * document is opened at that page (apps/server/src/http/spa.ts), so a phone opening /login fetches
 * the login page alongside the main script instead of after it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'vite';

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
  for (const [, path = '', name = ''] of source.matchAll(/path: '([^']+)',\s*\.\.\.page\((\w+),/g)) {
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
  // Already in the first download: the entry and what it imports, directly or not (index.html
  // preloads those itself).
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const initial = new Set<string>();
  const pending = chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (initial.has(file)) continue;
    initial.add(file);
    pending.push(...(byFile.get(file)?.imports ?? []));
  }
  const named = (name: string) => chunks.find((chunk) => chunk.name === name)?.fileName;
  const laterTexts = named('texts-later-en');
  const documentTexts = named('texts-documents-en');
  const preloads: Record<string, string[]> = {};
  for (const page of pages) {
    const chunk = chunks.find((c) =>
      c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/src/routes/${page.file}.tsx`),
    );
    if (!chunk) continue;
    const files = [chunk.fileName, ...chunk.imports, laterTexts, page.document ? documentTexts : undefined];
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
    },
  };
}
