/**
 * Signed webhooks (tips, Twitch EventSub), written once. A webhook is registered only when its
 * secret is set: without it, its path is the /api 404 like any unknown path and the API reference
 * does not list it. Its JSON body is parsed from the bytes as they arrived, kept for the HMAC.
 * `verifiedWebhook` checks the signature (HMAC-SHA256, compared in constant time) and, for a
 * sender that says when it sent, the replay window, before the body schema is validated: an
 * unsigned caller gets 403 and learns nothing about the body. A delivery is applied once: the
 * handler's `deliver` goes through the hub, de-duplicated by the delivery's id in
 * webhook_deliveries (TicketsService.apply).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ERROR_KEYS } from '@telerace/protocol';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preValidationAsyncHookHandler,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { HttpError } from '../http/errors.js';
import type { RouteRegistration } from '../module.js';
import type { IntegrationsService, TicketEvent } from './integrations.service.js';

/** Senders retry in bursts; signatures are cheap to check, so this is a looser limit than the API's. */
const WEBHOOK_RATE_LIMIT = { max: 600, timeWindow: 60_000 };

/** How a sender signs its deliveries. */
export interface WebhookSignature {
  /** The header carrying the hex HMAC-SHA256 (a `sha256=` prefix is accepted). */
  header: string;
  /** Headers whose values the sender signed before the body, in order (Twitch: message id, timestamp). */
  signedHeaders?: readonly string[];
  /** For a sender that says when it sent: its header, and how far from now a delivery may be (a replay). */
  sentAt?: { header: string; maxAgeMs: number };
}

/** Whether `signatureHex` (hex, any case) is HMAC-SHA256(secret, payload). */
function isValidHmacSha256(
  secret: string,
  payload: Buffer | string,
  signatureHex: string | undefined,
): boolean {
  if (!signatureHex || !/^[0-9a-fA-F]{64}$/.test(signatureHex)) return false;
  const expected = createHmac('sha256', secret).update(payload).digest();
  return timingSafeEqual(expected, Buffer.from(signatureHex, 'hex'));
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received, on webhook routes. */
    rawBody?: Buffer;
  }
}

/**
 * In this plugin scope only: JSON bodies are parsed from a kept copy of their bytes (the HMAC is
 * over those bytes, not over a re-serialization). A body that is not JSON is a 400.
 */
function rawJsonBody(app: FastifyInstance, maxBytes = 64 * 1024): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: maxBytes },
    (request, body, done) => {
      const bytes = body as Buffer;
      request.rawBody = bytes;
      try {
        done(null, bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8')));
      } catch {
        done(new HttpError(400, 'The body is not valid JSON.', ERROR_KEYS.validation), undefined);
      }
    },
  );
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const refused = (message: string): HttpError =>
  new HttpError(403, message, ERROR_KEYS.invalidWebhookSignature);

/** What the sender signed: the signed headers' values, then the body; null when one is missing. */
function signedBytes(request: FastifyRequest, signature: WebhookSignature): Buffer | null {
  const values = (signature.signedHeaders ?? []).map((name) => header(request, name));
  if (values.some((value) => value === undefined)) return null;
  return Buffer.concat([Buffer.from(values.join(''), 'utf8'), request.rawBody ?? Buffer.alloc(0)]);
}

/** The hook that lets only the sender's deliveries through: signed with the secret, and recent. */
function verifiedWebhook(
  secret: string,
  signature: WebhookSignature,
  clock: Clock,
): preValidationAsyncHookHandler {
  return async (request) => {
    const payload = signedBytes(request, signature);
    const hex = header(request, signature.header)?.replace(/^sha256=/, '');
    if (payload === null || !isValidHmacSha256(secret, payload, hex)) {
      throw refused('The webhook signature is missing or wrong.');
    }
    if (signature.sentAt) {
      const { header: name, maxAgeMs } = signature.sentAt;
      const sentAt = Date.parse(header(request, name) ?? '');
      if (!Number.isFinite(sentAt) || Math.abs(clock.now().getTime() - sentAt) > maxAgeMs) {
        throw refused(`The webhook timestamp is more than ${maxAgeMs / 60_000} minutes away.`);
      }
    }
  };
}

/** A verified delivery, as its handler gets it. */
export interface WebhookDelivery<Body> {
  body: Body;
  request: FastifyRequest;
  reply: FastifyReply;
  /**
   * Applies what a viewer did once per `deliveryId` (a replay changes nothing); a failed write
   * is a 503 with Retry-After, so the sender delivers it again.
   */
  deliver(deliveryId: string, event: TicketEvent): Promise<{ duplicate: boolean; tickets: number }>;
}

export interface SignedWebhook<Body extends z.ZodType> {
  /** Its path under /api. */
  path: string;
  /** What it is, for the API reference. */
  summary: string;
  description: string;
  signature: WebhookSignature;
  /** Where its deliveries are de-duplicated (webhook_deliveries.source). */
  source: string;
  /** Its body, validated once the signature is. */
  body: Body;
  handle(delivery: WebhookDelivery<z.output<Body>>): Promise<unknown>;
}

/** What a webhook is given: the hub its deliveries go to, the clock its timestamps are checked by. */
export interface WebhookDeps {
  integrations: IntegrationsService;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * The webhook's route, registered under /api only when its secret is set. `define` builds it from
 * the services it is given.
 */
export function signedWebhookRoutes<Body extends z.ZodType>(
  secret: string | null,
  define: (deps: WebhookDeps) => SignedWebhook<Body>,
  deps: WebhookDeps,
): RouteRegistration[] {
  if (secret === null) return [];
  const plugin = async (app: FastifyInstance) => {
    const webhook = define(deps);
    rawJsonBody(app);
    app.withTypeProvider<ZodTypeProvider>().post(
      webhook.path,
      {
        config: { rateLimit: WEBHOOK_RATE_LIMIT },
        preValidation: verifiedWebhook(secret, webhook.signature, deps.clock),
        schema: { summary: webhook.summary, description: webhook.description, body: webhook.body },
      },
      (request, reply) =>
        webhook.handle({
          body: request.body as z.output<Body>,
          request,
          reply,
          deliver: (deliveryId, event) =>
            deps.integrations.delivered({ source: webhook.source, deliveryId }, event),
        }),
    );
  };
  return [{ plugin }];
}
