/**
 * The API reference at /api/docs: Swagger UI (@fastify/swagger-ui, which serves its own assets, so
 * the page works offline) drawing the same OpenAPI document as /api/openapi.json.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import type { Access } from './authenticate.js';
import { contentSecurityPolicy } from './security.js';

export const API_DOCS_PREFIX = '/api/docs';

/** The OpenAPI document's description, shown at the top of the page (Markdown). */
export const API_DESCRIPTION = [
  'The REST API under `/api`. Routes for members take `Authorization: Bearer <access token>`;',
  'the raw document is at [/api/openapi.json](/api/openapi.json).',
  '',
  'The WebSocket messages (the car socket and the control socket on `/rcsocket`, the event socket',
  '`/api/race-ws`) are documented in `docs/protocol.md` of the source tree, generated from the same',
  'shared schemas (`npm run docs:protocol -w apps/server`).',
].join('\n');

/** The credentials the API takes, as the document names them in each operation's `security`. */
export const SECURITY_SCHEMES = {
  member: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A member's access token, from POST /api/login (or /api/refresh-token).",
  },
  admin: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "An admin's access token: a member's token is answered 403.",
  },
} as const;

const SCHEME_OF_ACCESS: Record<Access, keyof typeof SECURITY_SCHEMES> = {
  member: 'member',
  'member-before-terms': 'member',
  admin: 'admin',
};

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/**
 * The zod schemas of each route as JSON Schema, plus who may call it: the route's declared
 * `access` (authenticate.ts) becomes the operation's `security`, so the reference and the check
 * read the same declaration.
 */
export function operationTransform(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const transformed = jsonSchemaTransform(input);
  const access = (input.route as RouteOptions | undefined)?.config?.access;
  if (access === undefined || transformed.schema === undefined) return transformed;
  return {
    ...transformed,
    schema: { ...transformed.schema, security: [{ [SCHEME_OF_ACCESS[access]]: [] }] },
  };
}

/**
 * The page's own Content-Security-Policy, set by the plugin on its routes only: the web app's
 * policy without what only the web app loads (reCAPTCHA, the promo video, its WebSockets). Swagger
 * UI needs nothing more: its scripts and styles are files of its own, with no inline code.
 */
export function apiDocsPolicy(config: Pick<Config, 'publicUrl' | 'promoVideoUrl'>): Record<string, string[]> {
  return {
    ...contentSecurityPolicy(config),
    'script-src': ["'self'"],
    'media-src': ["'none'"],
    'frame-src': ["'none'"],
    'connect-src': ["'self'"],
  };
}

/** Registers the page on the root app: outside the /api scope, so its JSON 404 never answers for it. */
export async function registerApiDocs(
  app: FastifyInstance,
  config: Pick<Config, 'publicUrl' | 'promoVideoUrl'>,
): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: API_DOCS_PREFIX,
    staticCSP: apiDocsPolicy(config),
    // No badge fetched from validator.swagger.io (offline, and not in the policy).
    validatorUrl: false,
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    theme: { title: 'Telerace API reference' },
  });
}
