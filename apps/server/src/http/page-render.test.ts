/**
 * The server's side of public pages drawn as HTML (page-render.ts), with a stand-in for the web
 * build's renderer: a module with the same exports, written where the build puts it. What the
 * real renderer draws is checked in the browser tests (e2e/tests/first-paint.spec.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LANGUAGE_COOKIE, SESSION_HINT_COOKIE } from '@telerace/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { pageRendererFile } from '../paths.js';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { ManualClock } from '../test/clock.js';
import { pageHtml, RENDER_TIMEOUT_MS, RENDER_TTL_MS, RENDERS_PER_SECOND } from './page-render.js';

const INDEX_HTML =
  '<!doctype html><html lang="en" class="dark"><head><title>Telerace</title></head>' +
  '<body><div id="root"><div class="spinner"><p></p></div></div></body></html>';

/**
 * The stand-in renderer, run in the server's renderer thread as the real one is. It reads the
 * public config through the server's transport; `/leaderboards?…` shows how many pages it drew
 * and what each read got (status and keys). `/raffles/0` it declines (null),
 * `/raffles/13` it never answers, `/raffles/66` throws, `/raffles/99` ends its thread. `/leaderboards` it draws with everything
 * it read so far.
 */
const RENDERER = `
let renders = 0;
const asked = [];
let send;
export const setApiTransport = (transport) => { send = transport; };
export async function renderPage(url, language, now) {
  // What it did so far (its visits not counted), as the page: the test reads it.
  if (url.startsWith('/leaderboards')) return { language, title: 'Counts', html: JSON.stringify({ renders, asked }), state: {} };
  renders += 1;
  if (url === '/raffles/13') return new Promise(() => {});
  if (url === '/raffles/66') throw new Error('the renderer broke');
  if (url === '/raffles/99') process.exit(3);
  if (url === '/raffles/0') return null;
  const answer = await send('/api/public-config', { credentials: 'include' });
  const config = await answer.json();
  asked.push({ status: answer.status, keys: Object.keys(config).sort() });
  return {
    language,
    title: 'Page <' + language + '>',
    html: '<h1>Drawn ' + url + ' in ' + language + ' at ' + now + '</h1>',
    state: { language, renderedAt: now, note: '</script><script>alert(1)</script>' },
  };
}
`;

interface Counts {
  renders: number;
  asked: { status: number; keys: string[] }[];
}

describe('pageHtml', () => {
  const page = {
    language: 'fr' as const,
    title: 'Classements · Telerace',
    html: '<h1>Top</h1>',
    state: { a: 1 },
  };

  it('puts the page in #root, its language on <html>, its title in <head> and its state before </body>', () => {
    expect(pageHtml(INDEX_HTML, page)).toBe(
      '<!doctype html><html lang="fr" data-hydrating class="dark"><head><title>Classements · Telerace</title></head>' +
        '<body><div id="root"><h1>Top</h1></div>' +
        '<script type="application/json" id="telerace-page-state">{"a":1}</script></body></html>',
    );
  });

  it('escapes the title and keeps the state from ending its script element', () => {
    const html = pageHtml(INDEX_HTML, {
      ...page,
      title: '<b>&"',
      state: { text: '</script><!-- \u2028' },
    });
    expect(html).toContain('<title>&lt;b&gt;&amp;&quot;</title>');
    expect(html).toContain('{"text":"\\u003c/script>\\u003c!-- \\u2028"}');
    expect(html?.match(/<\/script>/g)).toHaveLength(1);
  });

  it('declines a template that is not the app’s', () => {
    expect(pageHtml('<html><body>nothing here</body></html>', page)).toBeNull();
  });
});

describe('public pages drawn by the server', () => {
  let testApp: StartedTestApp;
  const clock = new ManualClock(new Date('2026-12-08T10:00:00.300Z'));
  const open = (url: string, headers: Record<string, string> = {}) => testApp.app.inject({ url, headers });
  let countsAsked = 0;
  /** What the stand-in renderer did so far (asking costs a render, which it does not count). */
  const counts = async (): Promise<Counts> => {
    const page = await open(`/leaderboards?counts=${countsAsked++}`);
    return JSON.parse(/<div id="root">(.*)<\/div><script/.exec(page.body)?.[1] ?? 'null') as Counts;
  };

  beforeAll(async () => {
    // A budget of one API call a minute: the renderer's own reads must not use it.
    testApp = await startTestApp({}, { clock, rateLimit: { max: 1, timeWindowMs: 60_000 } });
    const web = testApp.config.webDistDir;
    await mkdir(web, { recursive: true });
    await writeFile(join(web, 'index.html'), INDEX_HTML);
    const renderer = pageRendererFile(web);
    await mkdir(dirname(renderer), { recursive: true });
    await writeFile(renderer, RENDERER);
  });
  afterAll(() => testApp.close());
  beforeEach(() => {
    // A new window of the render budget and of the kept pages for each test.
    clock.advance(Math.max(RENDER_TTL_MS, 1_000) + 1);
  });

  it('sends the page drawn in the visitor’s language, from the API’s public answers', async () => {
    const before = (await counts()).renders;
    const response = await open('/raffles/7', { 'accept-language': 'de-DE, fr-CA;q=0.8, en;q=0.5' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.vary).toBe('accept-encoding, accept-language, cookie');
    expect(response.body).toContain('<html lang="fr" data-hydrating');
    expect(response.body).toContain('<title>Page &lt;fr&gt;</title>');
    expect(response.body).toContain(`<h1>Drawn /raffles/7 in fr at ${clock.now().getTime()}</h1>`);
    expect(response.body).toContain('"note":"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"');
    expect((await counts()).renders).toBe(before + 1);
    // The renderer's read was answered (not refused by the one-a-minute limit) with the config.
    expect((await counts()).asked.at(-1)).toEqual({
      status: 200,
      keys: expect.arrayContaining(['socialProviders']),
    });
  });

  it('chooses ?lng=, then the language cookie, then Accept-Language, then English', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['/?lng=fr', { 'accept-language': 'en' }, 'fr'],
      ['/?lng=xx', { cookie: `${LANGUAGE_COOKIE}=fr` }, 'fr'],
      ['/', { cookie: `${LANGUAGE_COOKIE}=en`, 'accept-language': 'fr' }, 'en'],
      ['/', { 'accept-language': 'fr;q=0, en-GB' }, 'en'],
      ['/', { 'accept-language': 'es, de' }, 'en'],
      ['/', {}, 'en'],
    ];
    for (const [url, headers, language] of cases) {
      expect((await open(url, headers)).body, `${url} ${JSON.stringify(headers)}`).toContain(
        `<html lang="${language}"`,
      );
    }
  });

  it('draws a page once per second and language, however many viewers open it at once', async () => {
    const before = (await counts()).renders;
    const answers = await Promise.all(Array.from({ length: 40 }, () => open('/raffles/8')));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect((await counts()).renders).toBe(before + 1);
    // Still the same page a moment later; a new one once RENDER_TTL_MS has passed.
    clock.advance(RENDER_TTL_MS - 1);
    expect((await open('/raffles/8')).body).toBe(answers[0]?.body);
    expect((await counts()).renders).toBe(before + 1);
    clock.advance(1);
    const later = await open('/raffles/8');
    expect((await counts()).renders).toBe(before + 2);
    expect(later.body).not.toBe(answers[0]?.body);
    // French is a page of its own.
    await open('/raffles/8', { 'accept-language': 'fr' });
    expect((await counts()).renders).toBe(before + 3);
  });

  it('answers an unchanged page with 304 to a browser that has it', async () => {
    const first = await open('/raffles/9');
    const again = await open('/raffles/9', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('lets the browser draw the pages of a visitor with a session, and the other pages', async () => {
    const before = (await counts()).renders;
    for (const [url, headers] of [
      ['/raffles/10', { cookie: `${SESSION_HINT_COOKIE}=1` }],
      ['/car-selection', {}],
      ['/admin', {}],
    ] as const) {
      const response = await open(url, headers);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INDEX_HTML);
    }
    expect((await counts()).renders).toBe(before);
  });

  it('falls back to index.html when the renderer declines, throws or takes too long', async () => {
    expect((await open('/raffles/0')).body).toBe(INDEX_HTML);
    expect((await open('/raffles/66')).body).toBe(INDEX_HTML);
    expect(testApp.logText()).toContain('a page could not be rendered; the browser draws it');
    expect(testApp.logText()).toContain('the renderer broke');
    const before = (await counts()).renders;
    const hanging = open('/raffles/13');
    await vi.waitFor(async () => expect((await counts()).renders).toBe(before + 1));
    clock.advance(RENDER_TIMEOUT_MS);
    expect((await hanging).body).toBe(INDEX_HTML);
  });

  it('starts its thread again after it ended: the page being drawn is the browser’s, the next one is drawn', async () => {
    expect((await open('/raffles/99')).body).toBe(INDEX_HTML);
    expect((await open('/raffles/100')).body).toContain('Drawn /raffles/100');
  });

  it(`draws at most ${RENDERS_PER_SECOND} new pages a second; the others are drawn by their browser`, async () => {
    const before = (await counts()).renders;
    // A second of its own (reading the counts took a render).
    clock.advance(1_000);
    const answers = [];
    for (let id = 1000; id < 1000 + RENDERS_PER_SECOND + 10; id += 1)
      answers.push(await open(`/raffles/${id}`));
    expect(answers.filter((answer) => answer.body === INDEX_HTML)).toHaveLength(10);
    // A page already drawn is still sent (it costs nothing), and the next second draws again.
    expect((await open('/raffles/1000')).body).toContain('Drawn /raffles/1000');
    clock.advance(1_000);
    expect((await counts()).renders).toBe(before + RENDERS_PER_SECOND);
    expect((await open('/raffles/2000')).body).toContain('Drawn /raffles/2000');
    // Not one of the renderer's many reads was counted against the one-a-minute API budget.
    expect((await counts()).asked.length).toBeGreaterThan(RENDERS_PER_SECOND);
    expect((await counts()).asked.filter((read) => read.status !== 200)).toEqual([]);
  });
});
