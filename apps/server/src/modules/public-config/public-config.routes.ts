/**
 * What the web app needs to know about this deployment (promo video, community links, bot-check
 * site key, sign-in platforms, support address). Public by design: nothing secret may ever be added here.
 */
import { PublicConfig } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';

export function publicConfigOf(config: Config): PublicConfig {
  return PublicConfig.parse({
    promoVideoUrl: config.promoVideoUrl,
    community: config.community,
    recaptchaSiteKey: config.recaptchaSiteKey,
    // A provider whose app credentials are set (social.config.ts); only those are offered.
    socialProviders: {
      twitch: config.social.twitch.credentials !== null,
      youtube: config.social.youtube.credentials !== null,
      discord: config.social.discord.credentials !== null,
    },
    supportEmail: config.supportEmail,
  });
}

export const publicConfigRoutes =
  (config: Config): FastifyPluginAsyncZod =>
  async (app) => {
    // Computed once: the configuration does not change while the process runs.
    const body = publicConfigOf(config);
    app.get('/public-config', { schema: { response: { 200: PublicConfig } } }, async () => body);
  };
