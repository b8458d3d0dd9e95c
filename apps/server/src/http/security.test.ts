import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../test/app.js';
import { authHeader, buildAdmin, buildSession, buildUser, TEST_PASSWORD } from '../test/factories.js';
import { contentSecurityPolicy, isApiUrl } from './security.js';

function directives(header: string | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

describe('security headers over http', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({ PUBLIC_URL: 'http://localhost:8080' });
  });
  afterAll(() => testApp.close());

  it.each(['/', '/some/page', '/leaderboards?season=2'])(
    'sends the Content-Security-Policy on the page %s',
    async (url) => {
      const response = await testApp.app.inject(url);
      const csp = directives(response.headers['content-security-policy'] as string);
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.get('script-src')).toEqual([
        "'self'",
        'https://www.google.com/recaptcha/',
        'https://www.gstatic.com/recaptcha/',
      ]);
      expect(csp.get('frame-src')).toEqual([
        "'self'",
        'https://www.google.com/recaptcha/',
        'https://recaptcha.google.com/recaptcha/',
      ]);
      expect(csp.get('media-src')).toEqual(["'self'", 'blob:']);
      expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'https:']);
      expect(csp.get('connect-src')).toEqual(["'self'", 'ws://localhost:8080']);
      expect(csp.get('style-src')).toEqual(["'self'"]);
      expect(csp.get('object-src')).toEqual(["'none'"]);
      expect(csp.get('base-uri')).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.has('upgrade-insecure-requests')).toBe(false);
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    },
  );

  it.each(['/api/health', '/api/nope', '/api?x=1', '/api/public-config'])(
    'sends the API answer %s the short set: nothing may load, frame, sniff, embed or keep it',
    async (url) => {
      const response = await testApp.app.inject(url);
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(response.headers['cache-control']).toBe('no-store');
      // The page-only headers stay off JSON.
      expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
      expect(response.headers['x-dns-prefetch-control']).toBeUndefined();
    },
  );
});

describe('isApiUrl', () => {
  it('is the API and its query, not a page whose name starts alike', () => {
    for (const url of ['/api', '/api/', '/api/cars', '/api?x=1', '/api/docs/'])
      expect(isApiUrl(url)).toBe(true);
    for (const url of ['/', '/apiary', '/apis/x', '/leaderboards', '/x/api/cars'])
      expect(isApiUrl(url)).toBe(false);
  });
});

describe('security headers over https', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({
      PUBLIC_URL: 'https://telerace.example',
      PROMO_VIDEO_URL: 'https://www.youtube.com/embed/dQw4w9WgXcQ',
    });
  });
  afterAll(() => testApp.close());

  it('upgrades insecure requests, sends HSTS and allows the external promo video', async () => {
    const response = await testApp.app.inject('/');
    const csp = directives(response.headers['content-security-policy'] as string);
    expect(csp.get('upgrade-insecure-requests')).toEqual([]);
    expect(csp.get('connect-src')).toEqual(["'self'", 'wss://telerace.example']);
    expect(csp.get('frame-src')).toContain('https://www.youtube.com');
    expect(csp.get('media-src')).toContain('https://www.youtube.com');
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    // HSTS on the API's answers too.
    const api = await testApp.app.inject('/api/health');
    expect(api.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('contentSecurityPolicy', () => {
  it('adds nothing for a promo video on our own site', () => {
    for (const promoVideoUrl of ['/media/promo.webm', 'https://telerace.example/media/promo.webm', null]) {
      const csp = contentSecurityPolicy({ publicUrl: 'https://telerace.example', promoVideoUrl });
      expect(csp['media-src']).toEqual(["'self'", 'blob:']);
      expect(csp['frame-src']).toHaveLength(3);
    }
  });

  it('keeps a non-default port in the socket origin', () => {
    const csp = contentSecurityPolicy({ publicUrl: 'http://192.168.1.20:3000', promoVideoUrl: null });
    expect(csp['connect-src']).toEqual(["'self'", 'ws://192.168.1.20:3000']);
  });
});

/** A route that chooses its own cache policy. */
const cacheableRoutes: FastifyPluginAsync = async (app) => {
  app.get('/test/cacheable', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=60');
    return { ok: true };
  });
};

describe('Cache-Control on /api', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({}, { apiPlugins: [cacheableRoutes] });
  });
  afterAll(() => testApp.close());

  it('is no-store on every /api answer: sessions, personal data, admin lists, errors', async () => {
    const db = testApp.app.database.db;
    const admin = await buildAdmin(db);
    const member = await buildUser(db);
    const adminAuth = await authHeader(testApp.app, admin);
    const session = await buildSession(db, member);
    const login = await testApp.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email: member.email, password: TEST_PASSWORD },
    });
    expect(login.statusCode).toBe(200);
    const responses = [
      login,
      await testApp.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: member.email, password: 'wrong password' },
      }),
      await testApp.app.inject({
        method: 'POST',
        url: '/api/refresh-token',
        cookies: { telerace_refresh: session.token },
      }),
      await testApp.app.inject({ url: '/api/me', headers: await authHeader(testApp.app, member) }),
      await testApp.app.inject({ url: '/api/me/tickets', headers: await authHeader(testApp.app, member) }),
      await testApp.app.inject('/api/me'),
      await testApp.app.inject({ url: '/api/admin/users', headers: adminAuth }),
      await testApp.app.inject({ url: '/api/admin/cars', headers: adminAuth }),
      await testApp.app.inject('/api/health'),
      await testApp.app.inject('/api/public-config'),
      await testApp.app.inject('/api/nope'),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBeLessThan(500);
      expect(response.headers['cache-control'], response.raw.req.url).toBe('no-store');
    }
    expect(responses.map((r) => r.statusCode)).toEqual([
      200, 401, 200, 200, 200, 401, 200, 200, 200, 200, 404,
    ]);
  });

  it('keeps a policy a route sets itself', async () => {
    const response = await testApp.app.inject('/api/test/cacheable');
    expect(response.headers['cache-control']).toBe('public, max-age=60');
  });
});
