/**
 * The public pages as HTML (issue 45): a stream's viewer on a phone sees the raffle, the boards or
 * the sign-up form before any script has run. The web build's renderer (apps/web/dist-ssr, built
 * from apps/web/src/entry-server.tsx), in a thread of its own (page-render-worker.ts: the event
 * loop that relays the cars' commands never runs React), draws the page for a signed-out visitor, in their language,
 * from the same public answers the page would fetch — asked of this server's own router, in
 * process — and the page's HTML carries those answers, so hydrating it fetches none of them again.
 *
 * What it costs and how it is bounded:
 * - a page is drawn at most once per RENDER_TTL_MS per address and language, however many
 *   viewers open it (concurrent requests share one render); its HTML is compressed once;
 * - at most RENDERS_PER_SECOND new renders a second in all, and none slower than RENDER_TIMEOUT_MS
 *   (a database restarting): beyond either, the visitor gets the app's plain index.html and their
 *   browser draws the page, as before this existed. Many distinct addresses cost the server no more;
 * - the cache keeps MAX_KEPT pages, the oldest forgotten first.
 *
 * A visitor with a session (its hint cookie) gets the plain index.html: their browser draws the
 * page with their session, as for every member's page. Without the renderer (not built) every page
 * is the plain index.html.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import {
  DEFAULT_LANGUAGE,
  isServerRenderedPath,
  LANGUAGE_COOKIE,
  LANGUAGES,
  type Language,
  SESSION_HINT_COOKIE,
} from '@telerace/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { PAGE_RENDER_WORKER, startModuleWorker } from '../paths.js';
import { PreparedAnswer } from './cached-answer.js';
import type { DrawnPage, FromRenderer, PageAnswer, ToRenderer } from './page-render-messages.js';

export const RENDER_TTL_MS = 1_000;
export const RENDERS_PER_SECOND = 50;
export const RENDER_TIMEOUT_MS = 2_000;
const MAX_KEPT = 2_000;
/**
 * How a document is sent: revalidated like index.html, and kept apart by what it is drawn from (the
 * visitor's cookies and languages) in any cache between.
 */
export const HTML_PAGE = {
  contentType: 'text/html; charset=utf-8',
  revalidate: true,
  vary: 'accept-encoding, accept-language, cookie',
} as const;
/** Where the page's state goes: ssr/page-state.ts of the web app reads it by this id. */
const PAGE_STATE_ELEMENT_ID = 'telerace-page-state';

/**
 * The header that marks the renderer's own requests to the API: not a visitor's, so not counted
 * against anyone's rate limit (the renders themselves are bounded above). Random per process.
 */
export const RENDER_REQUEST_HEADER = 'x-telerace-page-render';
const RENDER_REQUEST_TOKEN = randomBytes(18).toString('base64url');

export function isRendererRequest(request: FastifyRequest): boolean {
  return request.headers[RENDER_REQUEST_HEADER] === RENDER_REQUEST_TOKEN;
}

/** The visitor's language as the app would choose it: `?lng=`, its cookie, then Accept-Language. */
export function languageOf(request: FastifyRequest): Language {
  const supported = (value: string | undefined): Language | undefined => {
    const language = value?.trim().toLowerCase().split(/[-_]/, 1)[0];
    return LANGUAGES.find((known) => known === language);
  };
  const query = request.query as Record<string, unknown> | undefined;
  const asked = typeof query?.lng === 'string' ? supported(query.lng) : undefined;
  if (asked) return asked;
  const remembered = supported(request.cookies?.[LANGUAGE_COOKIE]);
  if (remembered) return remembered;
  const accepted = (request.headers['accept-language'] ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
      return { language: supported(tag), q: q === undefined ? 1 : Number(q.slice(2)) };
    })
    .filter((entry) => entry.language !== undefined && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  return accepted[0]?.language ?? DEFAULT_LANGUAGE;
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** JSON safe inside a <script> element (the same escaping as the web app's scriptJson). */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');

/**
 * index.html with a drawn page in it: its language (and `data-hydrating`), its title, its HTML in
 * place of the loading screen in #root, and its state before </body>. Null when the template is
 * not the app's.
 */
export function pageHtml(template: string, page: DrawnPage): string | null {
  const root = template.indexOf('<div id="root">');
  const bodyEnd = template.lastIndexOf('</body>');
  const rootEnd = template.lastIndexOf('</div>', bodyEnd);
  if (root < 0 || bodyEnd < 0 || rootEnd < root) return null;
  const head = template
    .slice(0, root)
    // Until the app takes the page over, its buttons take no tap (the web app's styles.css).
    .replace(/<html lang="[^"]*"/, `<html lang="${page.language}" data-hydrating`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(page.title)}</title>`);
  const state = `<script type="application/json" id="${PAGE_STATE_ELEMENT_ID}">${scriptJson(page.state)}</script>`;
  return `${head}<div id="root">${page.html}</div>${state}${template.slice(rootEnd + '</div>'.length)}`;
}

interface Kept {
  answer: PreparedAnswer | null;
  until: number;
}

/** The thread that draws pages, and the renders it was asked for (by id) that it has not answered. */
interface RendererThread {
  worker: Worker;
  waiting: Map<number, (page: DrawnPage | null) => void>;
}

export class PageRenderer {
  readonly #kept = new Map<string, Promise<Kept>>();
  #builtAt = -1;
  #budget = { second: 0, used: 0 };
  #thread: RendererThread | null = null;
  #nextRender = 0;

  constructor(
    private readonly app: FastifyInstance,
    private readonly rendererFile: string,
    private readonly clock: Clock,
    /** The renderer's thread (a test gives its own). */
    private readonly startWorker: () => Worker = () => startModuleWorker(PAGE_RENDER_WORKER),
  ) {}

  /**
   * The drawn page for this request, or null for the plain index.html (`template`, with the
   * page's preloads). `template` is read per build by the caller (page-index.ts).
   */
  async pageFor(request: FastifyRequest, template: string): Promise<PreparedAnswer | null> {
    if (request.cookies?.[SESSION_HINT_COOKIE] !== undefined) return null;
    const pathname = request.url.split('?', 1)[0] ?? '/';
    if (!isServerRenderedPath(pathname)) return null;
    const href = this.#rendererHref();
    if (href === null) return null;
    const language = languageOf(request);
    const key = `${language} ${request.url}`;
    const now = this.clock.now().getTime();
    const kept = this.#kept.get(key);
    if (kept) {
      const { answer, until } = await kept;
      if (until > now) return answer;
    }
    if (!this.#withinBudget(now)) return null;
    const rendering = this.#render(href, request.url, language, template, now);
    this.#keep(key, rendering);
    return (await rendering).answer;
  }

  /** Stops the renderer's thread (the server is closing). */
  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = null;
    await thread?.worker.terminate();
  }

  async #render(href: string, url: string, language: Language, template: string, now: number): Promise<Kept> {
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(null), RENDER_TIMEOUT_MS);
    });
    try {
      const page = await Promise.race([this.#draw(href, url, language, now), timedOut]);
      const html = page && pageHtml(template, page);
      return { answer: html ? new PreparedAnswer(html, HTML_PAGE) : null, until: now + RENDER_TTL_MS };
    } finally {
      this.clock.clear(timer);
    }
  }

  /** The page from the renderer's thread (started at the first page), or null if it failed. */
  #draw(href: string, url: string, language: Language, now: number): Promise<DrawnPage | null> {
    const thread = this.#startedThread();
    const id = this.#nextRender++;
    return new Promise((resolve) => {
      thread.waiting.set(id, resolve);
      thread.worker.postMessage({ kind: 'render', id, href, url, language, now } satisfies ToRenderer);
    });
  }

  #startedThread(): RendererThread {
    if (this.#thread) return this.#thread;
    const thread: RendererThread = { worker: this.startWorker(), waiting: new Map() };
    const settle = (id: number, page: DrawnPage | null) => {
      thread.waiting.get(id)?.(page);
      thread.waiting.delete(id);
    };
    thread.worker.on('message', (message: FromRenderer) => {
      if (message.kind === 'rendered') settle(message.id, message.page);
      else if (message.kind === 'failed') {
        this.app.log.error(
          { err: { message: message.error } },
          'a page could not be rendered; the browser draws it',
        );
        settle(message.id, null);
      } else void this.#answer(thread, message.id, message.url);
    });
    // A thread that dies takes its renders with it: those pages are the browser's, the next one starts a thread.
    const ended = (error?: unknown) => {
      if (error)
        this.app.log.error({ err: error }, 'the page renderer stopped; it starts again with the next page');
      for (const id of [...thread.waiting.keys()]) settle(id, null);
      if (this.#thread === thread) this.#thread = null;
    };
    thread.worker.on('error', ended);
    thread.worker.on('exit', () => ended());
    thread.worker.unref();
    this.#thread = thread;
    return thread;
  }

  /** One of the renderer's reads: a public GET of this server's API, asked in process, without cookies. */
  async #answer(thread: RendererThread, id: number, url: string): Promise<void> {
    let answer: PageAnswer;
    try {
      const reply = await this.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'application/json', [RENDER_REQUEST_HEADER]: RENDER_REQUEST_TOKEN },
      });
      answer = {
        status: reply.statusCode,
        contentType: String(reply.headers['content-type'] ?? ''),
        body: new Uint8Array(reply.rawPayload),
      };
    } catch {
      answer = { status: 503, contentType: 'text/plain', body: new Uint8Array() };
    }
    thread.worker.postMessage({ kind: 'answer', id, answer } satisfies ToRenderer);
  }

  #keep(key: string, rendering: Promise<Kept>): void {
    this.#kept.delete(key);
    this.#kept.set(key, rendering);
    if (this.#kept.size > MAX_KEPT) {
      const oldest = this.#kept.keys().next().value;
      if (oldest !== undefined) this.#kept.delete(oldest);
    }
  }

  #withinBudget(now: number): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.#budget.second) this.#budget = { second, used: 0 };
    this.#budget.used += 1;
    return this.#budget.used <= RENDERS_PER_SECOND;
  }

  /** The current build's renderer as the thread imports it (a new build, a new module), or null if none. */
  #rendererHref(): string | null {
    let builtAt: number;
    try {
      builtAt = statSync(this.rendererFile).mtimeMs;
    } catch {
      return null;
    }
    if (builtAt !== this.#builtAt) {
      this.#builtAt = builtAt;
      this.#kept.clear();
    }
    return `${pathToFileURL(this.rendererFile).href}?build=${builtAt}`;
  }
}
