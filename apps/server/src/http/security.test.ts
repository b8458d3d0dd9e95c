import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../test/app.js';
import { contentSecurityPolicy } from './security.js';

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

  it.each(['/api/health', '/some/page', '/api/nope'])(
    'sends the Content-Security-Policy on %s',
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
