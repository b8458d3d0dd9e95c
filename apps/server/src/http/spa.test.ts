import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync, constants as zlib } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { CACHE_IMMUTABLE, CACHE_REVALIDATE, CACHE_SHORT, WEB_BUILD_MISSING_MESSAGE } from './spa.js';

/** Above the compression threshold (1 KiB), as the real one. */
const INDEX_HTML = `<!doctype html><html><head><title>Telerace</title><meta name="description" content="${'Drive real RC cars from your browser. '.repeat(30)}"></head><body><div id="root"></div><script src="/assets/app-3f9a1c.js"></script></body></html>`;
/** What the web build lists for pages fetched when shown (apps/web/src/route-preloads.ts). */
const ROUTE_PRELOADS = {
  login: ['/assets/Login-1a2b.js', '/assets/auth-form-9z8y.js'],
  // Never turned into a link: only the build's own hashed files are.
  broken: ['https://elsewhere.example/x.js', '/assets/../../etc/passwd.js'],
};
/** What the web build lists as the first answers of pages (apps/web/src/data-preloads.ts). */
const DATA_PRELOADS = {
  leaderboards: ['/api/leaderboards/all-time?page=1&limit=10'],
  // Never turned into a link: only our own API's paths with a plain query are.
  broken: ['https://elsewhere.example/api/x', '/api/x?a="><script>', '/assets/x.json'],
};
/** A page as served with `links` added at the end of its head. */
const withHeadLinks = (html: string, links: string) => html.replace('</head>', `${links}</head>`);
/** Big enough to be worth compressing. */
const APP_JS = `console.log(${JSON.stringify('telerace '.repeat(400))});\n`;
/** A chunk the build left compressed copies of (apps/web/src/precompress.ts: brotli 11, gzip 9). */
const REACT_JS = `export const react = ${JSON.stringify(Array.from({ length: 300 }, (_, i) => `node ${i}`))};\n`;
const REACT_BR = brotliCompressSync(REACT_JS, {
  params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
});
const REACT_GZ = gzipSync(REACT_JS, { level: 9 });
/** What the server's on-the-fly brotli (quality 4, app.ts) makes of it: not the build's bytes. */
const REACT_BR_ON_THE_FLY = brotliCompressSync(REACT_JS, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } });

describe('web app serving', () => {
  let testApp: StartedTestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
    const web = testApp.config.webDistDir;
    await mkdir(join(web, 'assets'), { recursive: true });
    await writeFile(join(web, 'index.html'), INDEX_HTML);
    await writeFile(join(web, 'assets', 'app-3f9a1c.js'), APP_JS);
    await writeFile(join(web, 'assets', 'react-7c1d.js'), REACT_JS);
    await writeFile(join(web, 'assets', 'react-7c1d.js.br'), REACT_BR);
    await writeFile(join(web, 'assets', 'react-7c1d.js.gz'), REACT_GZ);
    await writeFile(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(join(web, '.env'), 'SECRET=1');
    await writeFile(join(web, 'route-preloads.json'), JSON.stringify(ROUTE_PRELOADS));
    await writeFile(join(web, 'data-preloads.json'), JSON.stringify(DATA_PRELOADS));
  });
  afterAll(() => testApp.close());

  /** Opens `url` and expects index.html, revalidated on every visit, with `links` added to its head. */
  async function expectIndexPage(url: string, links = ''): Promise<void> {
    const response = await testApp.app.inject(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe(CACHE_REVALIDATE);
    expect(response.body).toBe(withHeadLinks(INDEX_HTML, links));
  }

  it.each(['/', '/some/deep/path', '/car-selection', '/control/3/7?x=1', '/reset-password/abc.def'])(
    'serves index.html for %s',
    (url) => expectIndexPage(url),
  );

  it('adds the opened page’s files as modulepreload links, and nothing for other pages', async () => {
    for (const url of ['/login', '/login?next=%2Fcar-selection']) {
      await expectIndexPage(
        url,
        '<link rel="modulepreload" crossorigin href="/assets/Login-1a2b.js">' +
          '<link rel="modulepreload" crossorigin href="/assets/auth-form-9z8y.js">',
      );
    }
    expect((await testApp.app.inject('/broken')).body).toBe(INDEX_HTML);
    expect((await testApp.app.inject('/')).body).toBe(INDEX_HTML);
  });

  it('adds the opened page’s first answers as fetch preloads the page’s own request reuses', async () => {
    for (const url of ['/leaderboards', '/leaderboards?tab=season']) {
      await expectIndexPage(
        url,
        '<link rel="preload" as="fetch" crossorigin="use-credentials" ' +
          'href="/api/leaderboards/all-time?page=1&amp;limit=10">',
      );
    }
    // The preloaded answer may be fetched by the page: the policy lets it connect to its origin.
    const csp = (await testApp.app.inject('/leaderboards')).headers['content-security-policy'];
    expect(csp).toMatch(/connect-src 'self'/);
    expect((await testApp.app.inject('/broken')).body).toBe(INDEX_HTML);
  });

  it('follows a new build without a restart', async () => {
    const web = testApp.config.webDistDir;
    const rebuilt = INDEX_HTML.replace('Telerace', 'Telerace 2');
    await writeFile(join(web, 'route-preloads.json'), JSON.stringify({ login: ['/assets/Login-new.js'] }));
    await writeFile(join(web, 'index.html'), rebuilt);
    await utimes(join(web, 'index.html'), new Date(), new Date(Date.now() + 5_000));
    const response = await testApp.app.inject('/login');
    expect(response.body).toBe(
      withHeadLinks(rebuilt, '<link rel="modulepreload" crossorigin href="/assets/Login-new.js">'),
    );
    await writeFile(join(web, 'route-preloads.json'), JSON.stringify(ROUTE_PRELOADS));
    await writeFile(join(web, 'index.html'), INDEX_HTML);
    await utimes(join(web, 'index.html'), new Date(), new Date(Date.now() + 10_000));
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await testApp.app.inject({ method: 'HEAD', url: '/leaderboards' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toBe('');
  });

  it('serves hashed assets as immutable', async () => {
    const response = await testApp.app.inject('/assets/app-3f9a1c.js');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe(CACHE_IMMUTABLE);
    expect(response.body).toBe(APP_JS);
  });

  it('serves other public files with a short cache', async () => {
    const response = await testApp.app.inject('/favicon.svg');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(response.headers['cache-control']).toBe(CACHE_SHORT);
  });

  it('answers 404 for a missing hashed asset instead of HTML', async () => {
    const response = await testApp.app.inject('/assets/app-old.js');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
  });

  it('answers 404 JSON at /metrics instead of the page: the metrics live on METRICS_PORT only', async () => {
    for (const url of ['/metrics', '/metrics?x=1']) {
      const response = await testApp.app.inject(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
    }
  });

  it('never serves files outside the build or dotfiles', async () => {
    for (const url of [
      '/../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2fpackage.json',
      '/.env',
    ]) {
      const response = await testApp.app.inject(url);
      expect(response.body, url).not.toMatch(/root:|SECRET=1|"name"/);
    }
  });

  it('sends the build’s brotli and gzip copies as they are, compressing nothing itself', async () => {
    // The build's bytes differ from what compressing on the fly would make: equal bodies are the file's.
    expect(REACT_BR.equals(REACT_BR_ON_THE_FLY)).toBe(false);
    for (const [accept, encoding, file] of [
      ['br', 'br', REACT_BR],
      ['gzip, deflate, br', 'br', REACT_BR],
      ['gzip', 'gzip', REACT_GZ],
    ] as const) {
      const response = await testApp.app.inject({
        url: '/assets/react-7c1d.js',
        headers: { 'accept-encoding': accept },
      });
      expect(response.statusCode, accept).toBe(200);
      expect(response.headers['content-encoding'], accept).toBe(encoding);
      expect(response.rawPayload.equals(file), accept).toBe(true);
      expect(response.headers['content-length'], accept).toBe(String(file.length));
      expect(response.headers['content-type'], accept).toMatch(/javascript/);
      expect(response.headers.vary, accept).toMatch(/accept-encoding/i);
      expect(response.headers['cache-control'], accept).toBe(CACHE_IMMUTABLE);
    }
  });

  it('gives each encoding its own ETag, and answers 304 to the one the client has', async () => {
    const brotli = await testApp.app.inject({
      url: '/assets/react-7c1d.js',
      headers: { 'accept-encoding': 'br' },
    });
    const plain = await testApp.app.inject('/assets/react-7c1d.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(REACT_JS);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.headers.etag).toBeTruthy();
    expect(brotli.headers.etag).not.toBe(plain.headers.etag);

    const again = await testApp.app.inject({
      url: '/assets/react-7c1d.js',
      headers: { 'accept-encoding': 'br', 'if-none-match': String(brotli.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('sends index.html’s brotli copy, revalidated as index.html', async () => {
    const html = Buffer.from(INDEX_HTML);
    const web = testApp.config.webDistDir;
    await writeFile(join(web, 'index.html.br'), brotliCompressSync(html));
    try {
      for (const url of ['/', '/some/deep/path']) {
        const response = await testApp.app.inject({ url, headers: { 'accept-encoding': 'br' } });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-encoding'], url).toBe('br');
        expect(response.headers['content-type'], url).toMatch(/^text\/html/);
        expect(response.headers['cache-control'], url).toBe(CACHE_REVALIDATE);
        expect(response.rawPayload.equals(brotliCompressSync(html)), url).toBe(true);
      }
    } finally {
      await rm(join(web, 'index.html.br'));
    }
  });

  it('compresses a page with preloads once, with an ETag that spares the next download', async () => {
    const first = await testApp.app.inject({ url: '/login', headers: { 'accept-encoding': 'br' } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers['cache-control']).toBe(CACHE_REVALIDATE);
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(first.rawPayload).toString()).toContain('/assets/Login-1a2b.js');
    const second = await testApp.app.inject({ url: '/login', headers: { 'accept-encoding': 'br' } });
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);

    const revalidated = await testApp.app.inject({
      url: '/login?next=%2Fprofile',
      headers: { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
  });

  it('compresses on the fly a text file the build left without copies', async () => {
    const gzip = await testApp.app.inject({
      url: '/assets/app-3f9a1c.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(APP_JS);
    expect(gzip.headers['cache-control']).toBe(CACHE_IMMUTABLE);

    const brotli = await testApp.app.inject({
      url: '/assets/app-3f9a1c.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.rawPayload.length).toBeLessThan(APP_JS.length / 4);
  });

  it('leaves clients without accept-encoding alone', async () => {
    const plain = await testApp.app.inject('/assets/app-3f9a1c.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(APP_JS);
  });
});

describe('web app not built', () => {
  let testApp: StartedTestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('answers 503 with a one-line hint on every page, while the API keeps working', async () => {
    for (const url of ['/', '/about', '/assets/app.js']) {
      const response = await testApp.app.inject(url);
      expect(response.statusCode, url).toBe(503);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toBe(WEB_BUILD_MISSING_MESSAGE);
      expect(response.body.trim()).not.toContain('\n');
    }
    expect((await testApp.app.inject('/api/health')).statusCode).toBe(200);
  });

  it('serves the build as soon as it appears, without a restart', async () => {
    await mkdir(testApp.config.webDistDir, { recursive: true });
    await writeFile(join(testApp.config.webDistDir, 'index.html'), INDEX_HTML);
    const response = await testApp.app.inject('/about');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX_HTML);
  });
});
