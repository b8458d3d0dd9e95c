/**
 * index.html as opened at one page: with `modulepreload` links for the files that page fetches
 * beyond the first download (the web build lists them in route-preloads.json, per first path
 * segment: apps/web/src/route-preloads.ts), and `preload` links for the public answers it fetches
 * first (data-preloads.json: apps/web/src/data-preloads.ts). The browser then fetches the page's
 * code and data alongside the main script instead of after it ran — what a phone on a slow
 * network sees first sooner. Made once per segment and build (the build may be replaced while the
 * server runs), and compressed once per encoding, with an ETag (cached-answer.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PreparedAnswer } from './cached-answer.js';
import { HTML_PAGE } from './page-render.js';

export const ROUTE_PRELOADS_FILE = 'route-preloads.json';
export const DATA_PRELOADS_FILE = 'data-preloads.json';
const INDEX_FILE = 'index.html';
/** Only hashed build files, as the build writes them (nothing else is ever put in a link). */
const PRELOADABLE = /^\/assets\/[\w.-]+\.js$/;
/** Only our own API's GET paths with a plain query (no quote, angle bracket or other origin). */
const DATA_PRELOADABLE = /^\/api\/[\w/-]+(\?[\w=&-]*)?$/;

type Preloads = Record<string, string[]>;

/** A list the build wrote, or none when it is missing or not a list per segment. */
function readPreloads(file: string): Preloads {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Preloads) : {};
  } catch {
    return {};
  }
}

const listed = (files: unknown, allowed: RegExp): string[] =>
  Array.isArray(files)
    ? files.filter((file): file is string => typeof file === 'string' && allowed.test(file))
    : [];

export class PageIndex {
  #builtAt = -1;
  #preloads: Preloads = {};
  #dataPreloads: Preloads = {};
  #index = '';
  readonly #pages = new Map<string, PreparedAnswer | null>();

  constructor(readonly webDistDir: string) {}

  /** The HTML to send for a document opened at `path`, or null for the plain index.html. */
  pageFor(path: string): PreparedAnswer | null {
    this.#refresh();
    const segment = path.split('/')[1] ?? '';
    if (!this.#pages.has(segment)) this.#pages.set(segment, this.#withPreloads(segment));
    return this.#pages.get(segment) ?? null;
  }

  /**
   * index.html for a page the server draws (page-render.ts): with its code's preloads but not its
   * answers' — those come inside the HTML. Empty when there is no build.
   */
  templateFor(path: string): string {
    this.#refresh();
    const segment = path.split('/')[1] ?? '';
    return this.#withLinks(this.#codePreloads(segment)) ?? this.#index;
  }

  #codePreloads(segment: string): string[] {
    return listed(this.#preloads[segment], PRELOADABLE).map(
      (file) => `<link rel="modulepreload" crossorigin href="${file}">`,
    );
  }

  #withPreloads(segment: string): PreparedAnswer | null {
    if (!Object.hasOwn(this.#preloads, segment) && !Object.hasOwn(this.#dataPreloads, segment)) return null;
    // The answers first: a few hundred bytes the page waits for once its code has run.
    // `use-credentials` is the page's `credentials: 'include'`: the same request, so it is reused.
    const html = this.#withLinks([
      ...listed(this.#dataPreloads[segment], DATA_PRELOADABLE).map(
        (url) =>
          `<link rel="preload" as="fetch" crossorigin="use-credentials" href="${url.replaceAll('&', '&amp;')}">`,
      ),
      ...this.#codePreloads(segment),
    ]);
    // Revalidated like the file it stands for (`no-cache`), with the page's own ETag.
    return html === null ? null : new PreparedAnswer(html, HTML_PAGE);
  }

  /** index.html with `links` at the end of its <head>, or null when there are none (or no <head>). */
  #withLinks(links: string[]): string | null {
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
    // No build, or a build without the lists: every page gets the plain index.html.
    try {
      this.#index = readFileSync(join(this.webDistDir, INDEX_FILE), 'utf8');
    } catch {
      this.#index = '';
    }
    this.#preloads = readPreloads(join(this.webDistDir, ROUTE_PRELOADS_FILE));
    this.#dataPreloads = readPreloads(join(this.webDistDir, DATA_PRELOADS_FILE));
  }
}
