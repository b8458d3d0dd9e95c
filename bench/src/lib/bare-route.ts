/**
 * The baseline for a Telerace read: a bare Fastify (the framework the server is built on) in its
 * own process, answering the bytes and content type captured from the real route, with nothing
 * else on the request path. Optionally it also forwards drives like a bare relay, in the same
 * process, so a relay baseline shares its event loop with web traffic exactly as the server does.
 */

import { type Running, startScript } from './processes.js';
import { FORWARDER_SOURCE } from './relay-clients.js';

export interface CapturedRoute {
  path: string;
  contentType: string;
  body: string;
}

/** GETs a real route once and keeps what it answered. */
export async function captureRoute(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<CapturedRoute> {
  const res = await fetch(`${base}${path}`, { headers });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${body}`);
  return { path, contentType: res.headers.get('content-type') ?? 'application/octet-stream', body };
}

const BARE_FASTIFY = `${FORWARDER_SOURCE}
import Fastify from 'fastify';
const app = Fastify({ logger: false });
for (const route of JSON.parse(process.env.BARE_ROUTES)) {
  app.get(route.path, (_request, reply) => reply.type(route.contentType).send(route.body));
}
if (process.env.BARE_FORWARDER === '1') forwarder({ server: app.server });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

export function startBareRoutes(
  routes: CapturedRoute[],
  options: { forwarder?: boolean } = {},
): Promise<Running> {
  const first = routes[0];
  if (!first) throw new Error('a bare server needs at least one route');
  return startScript(BARE_FASTIFY, first.path, {
    BARE_ROUTES: JSON.stringify(routes),
    BARE_FORWARDER: options.forwarder ? '1' : '0',
  });
}
