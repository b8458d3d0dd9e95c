/**
 * index.html as opened at one page: with `modulepreload` links for the files that page fetches
 * beyond the first download (the web build lists them in route-preloads.json, per first path
 * segment: apps/web/src/route-preloads.ts). The browser then fetches the page's code alongside
 * the main script instead of after it ran — what a phone on a slow network sees first sooner.
 * Made once per segment and build (the build may be replaced while the server runs).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROUTE_PRELOADS_FILE = 'route-preloads.json';
const INDEX_FILE = 'index.html';
/** Only hashed build files, as the build writes them (nothing else is ever put in a link). */
const PRELOADABLE = /^\/assets\/[\w.-]+\.js$/;

export class PageIndex {
  #builtAt = -1;
  #preloads: Record<string, string[]> = {};
  #index = '';
  readonly #pages = new Map<string, string | null>();

  constructor(readonly webDistDir: string) {}

  /** The HTML to send for a document opened at `path`, or null for the plain index.html. */
  htmlFor(path: string): string | null {
    this.#refresh();
    const segment = path.split('/')[1] ?? '';
    if (!this.#pages.has(segment)) this.#pages.set(segment, this.#withPreloads(this.#preloads[segment]));
    return this.#pages.get(segment) ?? null;
  }

  #withPreloads(files: string[] | undefined): string | null {
    const links = (files ?? [])
      .filter((file) => PRELOADABLE.test(file))
      .map((file) => `<link rel="modulepreload" crossorigin href="${file}">`);
    const at = this.#index.indexOf('</head>');
    if (links.length === 0 || at < 0) return null;
    return `${this.#index.slice(0, at)}${links.join('')}${this.#index.slice(at)}`;
  }

  #refresh(): void {
    let builtAt: number;
    try {
      builtAt = statSync(join(this.webDistDir, INDEX_FILE)).mtimeMs;
    } catch {
      builtAt = -1;
    }
    if (builtAt === this.#builtAt) return;
    this.#builtAt = builtAt;
    this.#pages.clear();
    try {
      this.#index = readFileSync(join(this.webDistDir, INDEX_FILE), 'utf8');
      const parsed: unknown = JSON.parse(readFileSync(join(this.webDistDir, ROUTE_PRELOADS_FILE), 'utf8'));
      this.#preloads =
        typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string[]>) : {};
    } catch {
      // No build, or a build without the list: every page gets the plain index.html.
      this.#preloads = {};
    }
  }
}
