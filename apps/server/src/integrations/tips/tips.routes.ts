/**
 * POST /api/webhooks/tips: donations relayed by a tip service (StreamElements, Streamlabs, a
 * Ko-fi-style webhook). Signed: `X-Signature` is the hex HMAC-SHA256 of the raw body with
 * TIPS_WEBHOOK_SECRET (a `sha256=` prefix is accepted). Idempotent on the tip's `id`; a tip that
 * cannot be written is answered 503 with Retry-After and nothing recorded, so its retry counts.
 */
import { ERROR_KEYS, TipWebhookBody } from '@telerace/protocol';
import type { FastifyPluginAsync } from 'fastify';
import { HttpError, notFoundError } from '../../http/errors.js';
import { isValidHmacSha256, rawJsonBody } from '../webhook-signature.js';

/** Tip services retry in bursts; signatures are cheap to check, so this is a looser limit than the API's. */
export const WEBHOOK_RATE_LIMIT = { max: 600, timeWindow: 60_000 };
/** The de-duplication source of tip ids (webhook_deliveries). */
const TIPS_DELIVERY_SOURCE = 'tips';

export const tipsRoutes: FastifyPluginAsync<{ secret: string | null }> = async (app, { secret }) => {
  rawJsonBody(app);
  const integrations = app.integrations;

  app.post(
    '/webhooks/tips',
    { config: { rateLimit: WEBHOOK_RATE_LIMIT }, schema: { hide: true } },
    async (request) => {
      if (secret === null) throw notFoundError();
      const signature = request.headers['x-signature'];
      const hex = typeof signature === 'string' ? signature.replace(/^sha256=/, '') : undefined;
      if (!isValidHmacSha256(secret, request.rawBody ?? Buffer.alloc(0), hex)) {
        throw new HttpError(
          403,
          'The webhook signature is missing or wrong.',
          ERROR_KEYS.invalidWebhookSignature,
        );
      }
      const parsed = TipWebhookBody.safeParse(request.body);
      if (!parsed.success) {
        throw new HttpError(
          400,
          `Invalid tip: ${parsed.error.issues[0]?.message ?? 'bad body'}`,
          ERROR_KEYS.validation,
        );
      }
      const tip = parsed.data;
      const { duplicate, tickets } = await integrations.delivered(
        { source: TIPS_DELIVERY_SOURCE, deliveryId: tip.id },
        {
          kind: 'donation',
          viewer: {
            platform: tip.platform,
            platformUserId: tip.platformUserId,
            displayName: tip.displayName ?? tip.platformUserId,
          },
          amount: tip.amount,
          currency: tip.currency,
          sourceId: `tips:${tip.id}`,
        },
      );
      return { received: true, duplicate, tickets };
    },
  );
};
