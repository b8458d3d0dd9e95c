/**
 * POST /api/webhooks/tips: donations relayed by a tip service (StreamElements, Streamlabs, a
 * Ko-fi-style webhook), registered when TIPS_WEBHOOK_SECRET is set. Signed: `X-Signature` is the
 * hex HMAC-SHA256 of the raw body with that secret (a `sha256=` prefix is accepted). Idempotent on
 * the tip's `id`; a tip that cannot be written is answered 503 with Retry-After and nothing
 * recorded, so its retry counts (verified-webhook.ts).
 */
import { TipWebhookBody } from '@telerace/protocol';
import type { SignedWebhook } from '../verified-webhook.js';

export const tipsWebhook = (): SignedWebhook<typeof TipWebhookBody> => ({
  path: '/webhooks/tips',
  summary: 'A tip relayed by a tip service',
  description:
    'Signed: `X-Signature` is the hex HMAC-SHA256 of the raw body with TIPS_WEBHOOK_SECRET (a `sha256=` ' +
    'prefix is accepted). 1 ticket per whole USD to the platform identity, once per tip `id`.',
  signature: { header: 'x-signature' },
  source: 'tips',
  body: TipWebhookBody,
  handle: async ({ body: tip, deliver }) => {
    const { duplicate, tickets } = await deliver(tip.id, {
      kind: 'donation',
      viewer: {
        platform: tip.platform,
        platformUserId: tip.platformUserId,
        displayName: tip.displayName ?? tip.platformUserId,
      },
      amount: tip.amount,
      currency: tip.currency,
      sourceId: `tips:${tip.id}`,
    });
    return { received: true, duplicate, tickets };
  },
});
