/**
 * Settings shared by every chat integration (docs/integrations.md): the join command viewers type,
 * the language the bots answer in, and how donations in other currencies become tickets.
 */
import { DEFAULT_CHAT_JOIN_COMMAND } from '@telerace/protocol';
import { z } from 'zod';
import { defineSection, setting } from '../config/define.js';

/** `EUR=1.08,CAD=0.73`: what one unit of each currency is worth in USD. */
export const usdRates = () =>
  z.string().transform((text, context) => {
    const rates: Record<string, number> = { USD: 1 };
    for (const pair of text.split(',').map((part) => part.trim())) {
      if (pair === '') continue;
      const match = /^([A-Za-z]{3})\s*=\s*(\d+(?:\.\d+)?)$/.exec(pair);
      const rate = match ? Number(match[2]) : Number.NaN;
      if (!match || !(rate > 0)) {
        context.addIssue({ code: 'custom', message: `"${pair}" is not CODE=rate (e.g. EUR=1.08)` });
        return z.NEVER;
      }
      rates[(match[1] as string).toUpperCase()] = rate;
    }
    return rates;
  });

export const integrationsConfig = defineSection({
  chatJoinCommand: setting({
    env: 'CHAT_JOIN_COMMAND',
    schema: z
      .string()
      .trim()
      .regex(/^\S{1,32}$/, 'one word of at most 32 characters'),
    default: DEFAULT_CHAT_JOIN_COMMAND,
    doc: 'The command viewers type in Twitch, YouTube or Discord chat to enter the open raffle (any case). Discord also has the `/join` slash command.',
  }),
  chatLanguage: setting({
    env: 'CHAT_LANGUAGE',
    schema: z.enum(['en', 'fr']),
    default: 'en',
    doc: 'The language of the bots’ answers in chat: `en` or `fr`.',
  }),
  donationUsdRates: setting({
    env: 'DONATION_USD_RATES',
    schema: usdRates(),
    default: '',
    empty: 'value',
    doc: 'USD value of one unit of each other currency donations arrive in, e.g. `EUR=1.08,CAD=0.73` (USD is always 1). A donation in a currency without a rate is recorded and shown to admins but gives no tickets.',
  }),
  tipsWebhookSecret: setting({
    env: 'TIPS_WEBHOOK_SECRET',
    schema: z.string().min(16, 'at least 16 characters'),
    default: null,
    doc: 'Shared secret of `POST /api/webhooks/tips` (HMAC-SHA256 of the raw body in `X-Signature`). Unset: the tips webhook is not registered (404).',
    secret: true,
  }),
});
