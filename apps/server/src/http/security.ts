/**
 * Security headers (helmet) on pages, a short set of their own with `Cache-Control: no-store` on
 * the API's JSON answers, and the pages' Content-Security-Policy.
 * The policy lists exactly what the web app loads: its own files, reCAPTCHA, the promo video's
 * host when it lives elsewhere, and WebSockets back to our own origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config.js';

const RECAPTCHA_SCRIPTS = ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'];
const RECAPTCHA_FRAMES = ['https://www.google.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'];

/** The origin of an absolute http(s) URL that is not our own; null for site paths and our origin. */
function externalOrigin(url: string | null, publicOrigin: string): string | null {
  if (url === null || !/^https?:\/\//.test(url)) return null;
  const { origin } = new URL(url);
  return origin === publicOrigin ? null : origin;
}

export function isHttps(config: Pick<Config, 'publicUrl'>): boolean {
  return new URL(config.publicUrl).protocol === 'https:';
}

export function contentSecurityPolicy(
  config: Pick<Config, 'publicUrl' | 'promoVideoUrl'>,
): Record<string, string[]> {
  const publicUrl = new URL(config.publicUrl);
  const socketOrigin = `${publicUrl.protocol === 'https:' ? 'wss:' : 'ws:'}//${publicUrl.host}`;
  const promoOrigin = externalOrigin(config.promoVideoUrl, publicUrl.origin);
  const promo = promoOrigin ? [promoOrigin] : [];
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...RECAPTCHA_SCRIPTS],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'https:'],
    'font-src': ["'self'"],
    'media-src': ["'self'", 'blob:', ...promo],
    'frame-src': ["'self'", ...RECAPTCHA_FRAMES, ...promo],
    'connect-src': ["'self'", socketOrigin],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    ...(publicUrl.protocol === 'https:' ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

/**
 * Whether the request is for the API: '/api', '/api/…', '/api?…' — not '/apiary'. Checked on every
 * request, so without splitting the URL. (The API's reference page, /api/docs, is under it too and
 * sets its own policy: http/api-docs.ts.)
 */
export function isApiUrl(url: string): boolean {
  if (!url.startsWith('/api')) return false;
  const next = url.charCodeAt(4);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */;
}

/**
 * What a JSON answer of the API carries instead of a page's headers (OWASP's REST Security Cheat
 * Sheet): nothing may load or frame it, no type sniffing, no cross-origin embedding, no browser
 * or proxy keeps it. The page-only headers (the page's policy, opener and agent-cluster
 * isolation, DNS prefetch, …) do nothing for JSON, and every visitor's polls paid to build and
 * send the ~1 KB of them: the largest allocation left per cached read (heap sampling under
 * `npm run bench -- http`).
 */
export function apiAnswerHeaders(documentHeaders: Record<string, string>): Record<string, string> {
  const hsts = documentHeaders['strict-transport-security'];
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-resource-policy': 'same-origin',
    ...(hsts ? { 'strict-transport-security': hsts } : {}),
    // API answers carry sessions, personal data, control codes. A route with a policy of its own
    // sets the header again, which replaces this one.
    'cache-control': 'no-store',
  };
}

/**
 * The headers helmet sets with these options, worked out once: they depend only on the
 * configuration (no nonces), and helmet (or @fastify/helmet, which builds helmet again on every
 * request) costs more per request than the rest of a cached API read.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

export async function registerSecurityHeaders(
  app: FastifyInstance,
  config: Pick<Config, 'publicUrl' | 'promoVideoUrl'>,
): Promise<void> {
  const headers = securityHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(config) },
    // Same as the CSP's frame-ancestors 'none', for browsers that only know the old header.
    frameguard: { action: 'deny' },
    // Helmet's `no-referrer` breaks embedded YouTube players (they require the embedding origin);
    // this sends only our origin cross-site, never paths (which may carry reset tokens).
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // HSTS over plain http would be ignored by browsers at best and lock out a dev setup at worst.
    strictTransportSecurity: isHttps(config) ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  const apiHeaders = apiAnswerHeaders(headers);
  // A callback hook, not an async one: one promise less per request on the hottest path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isApiUrl(request.url) ? apiHeaders : headers);
    done();
  });
}
