/**
 * Tips from tip services (docs/integrations.md "Tips"): a signed webhook, on when
 * TIPS_WEBHOOK_SECRET is set. Nothing to connect to: it is "connected" while configured.
 */
import { defineModule } from '../../module.js';
import { signedWebhookRoutes } from '../verified-webhook.js';
import { tipsWebhook } from './tips.routes.js';

export const tipsModule = defineModule({
  name: 'tips',
  needs: ['integrations'],
  routes: ({ integrations }, { config, clock, log }) =>
    signedWebhookRoutes(config.tipsWebhookSecret, tipsWebhook, { integrations, clock, log }),
  start: async ({ integrations }, { config }) => {
    if (config.tipsWebhookSecret === null) return;
    integrations.register({ id: 'tips', target: '/api/webhooks/tips' });
    integrations.setState('tips', 'connected');
  },
});
