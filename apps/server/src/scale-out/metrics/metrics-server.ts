/**
 * The metrics server: a small node:http server of its own on METRICS_PORT that answers only
 * `GET /metrics` and the operators' `GET /health` (the database kind, the version, the database's
 * state and why it is away: no longer on the public /api/health, issue 39), never on the public
 * port (nothing there passes through the web app's rate limiter, security headers or logs of
 * every request, and a firewall can keep it to the monitoring host). With METRICS_TOKEN, a request
 * without `Authorization: Bearer <token>` gets 401.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HealthDetails } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';

export interface MetricsServerOptions {
  registry: Registry;
  /** What GET /health answers (modules/health/health-check.ts). */
  health: { details(): Promise<HealthDetails> };
  host: string;
  /** 0: any free port (`port` tells which once started). */
  port: number;
  token: string | null;
  log: FastifyBaseLogger;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Compared in constant time, whatever the lengths (through their digests). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (\S+)$/i.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), digest(token));
}

function answer(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(`${text}\n`);
}

export class MetricsServer {
  readonly #server: Server;
  readonly #options: MetricsServerOptions;
  readonly registry: Registry;

  constructor(options: MetricsServerOptions) {
    this.#options = options;
    this.registry = options.registry;
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  /** The port listened on, once started. */
  get port(): number | null {
    const address = this.#server.address() as AddressInfo | null;
    return address?.port ?? null;
  }

  /** Listens; rejects when the port is taken (the server then refuses to start). */
  async start(): Promise<void> {
    const { host, port, log } = this.#options;
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    log.info({ host, port: this.port, token: this.#options.token !== null }, 'metrics at GET /metrics');
  }

  async stop(): Promise<void> {
    if (!this.#server.listening) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' && path !== '/health')
      return answer(response, 404, 'Not found: the metrics are at /metrics, the health details at /health');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return answer(response, 405, 'Method not allowed', { allow: 'GET, HEAD' });
    const { token, log } = this.#options;
    if (token !== null && !bearerMatches(request.headers.authorization, token))
      return answer(response, 401, 'Unauthorized: Authorization: Bearer <METRICS_TOKEN> is required', {
        'www-authenticate': 'Bearer realm="metrics"',
      });
    if (path === '/health') {
      const body = JSON.stringify(await this.#options.health.details());
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    try {
      const text = await this.registry.metrics();
      response.writeHead(200, { 'content-type': this.registry.contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : text);
    } catch (error) {
      log.error({ err: error }, 'metrics could not be collected');
      answer(response, 500, 'The metrics could not be collected');
    }
  }
}
