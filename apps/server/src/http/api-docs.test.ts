import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedTestApp, startTestApp } from '../test/app.js';
import { API_DOCS_PREFIX, apiDocsPolicy } from './api-docs.js';
import { contentSecurityPolicy } from './security.js';

/** A directives object as the header says it, for comparing policies whatever their spacing. */
function parsePolicy(header: string): Record<string, string[]> {
  return Object.fromEntries(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name as string, values]),
  );
}

describe('API reference at /api/docs', () => {
  let testApp: StartedTestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const get = (url: string) => testApp.app.inject({ method: 'GET', url });

  it.each([API_DOCS_PREFIX, `${API_DOCS_PREFIX}/`])(
    '%s is the Swagger UI page, drawn from the served OpenAPI document',
    async (url) => {
      const page = await get(url);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<title>Telerace API reference</title>');
      expect(page.body).toContain('swagger-ui-bundle.js');

      // The page's script points Swagger UI at ./json, the same document as /api/openapi.json.
      const initializer = await get(`${API_DOCS_PREFIX}/static/swagger-initializer.js`);
      expect(initializer.statusCode).toBe(200);
      expect(initializer.body).toContain("resolveUrl('./json')");
      const [document, openapi] = await Promise.all([
        get(`${API_DOCS_PREFIX}/json`),
        get('/api/openapi.json'),
      ]);
      expect(document.statusCode).toBe(200);
      expect(document.json()).toEqual(openapi.json());
    },
  );

  it('serves its own assets, so the page works offline', async () => {
    const page = await get(`${API_DOCS_PREFIX}/`);
    const assets = [...page.body.matchAll(/(?:href|src)="\.\/(static\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(
      expect.arrayContaining([
        'static/swagger-ui.css',
        'static/swagger-ui-bundle.js',
        'static/swagger-ui-standalone-preset.js',
      ]),
    );
    for (const asset of assets) {
      const response = await get(`${API_DOCS_PREFIX}/${asset}`);
      expect(response.statusCode, asset).toBe(200);
      expect(response.body.length, asset).toBeGreaterThan(0);
    }
    // Nothing fetched from elsewhere: every script and style is one of ours.
    expect(page.body).not.toMatch(/(?:href|src)="(?:https?:)?\/\//);
  });

  it('gives the page its own policy and leaves the web app’s unchanged', async () => {
    const page = await get(`${API_DOCS_PREFIX}/`);
    const policy = parsePolicy(String(page.headers['content-security-policy']));
    expect(policy).toEqual(apiDocsPolicy(testApp.config));
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['style-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);

    const app = await get('/');
    expect(parsePolicy(String(app.headers['content-security-policy']))).toEqual(
      contentSecurityPolicy(testApp.config),
    );
  });

  it('describes the API and points to the socket messages', async () => {
    const openapi = (await get('/api/openapi.json')).json() as { info: { description: string } };
    expect(openapi.info.description).toContain('docs/protocol.md');
  });

  it('leaves the /api JSON 404 to other paths', async () => {
    const missing = await get('/api/docs-nothing-here');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    const missingAsset = await get(`${API_DOCS_PREFIX}/static/nothing.js`);
    expect(missingAsset.statusCode).toBe(404);
  });
});
