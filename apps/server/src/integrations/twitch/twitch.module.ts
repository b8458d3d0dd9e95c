/**
 * Twitch (docs/integrations.md "Twitch"): the chat bot (TWITCH_CHANNEL, TWITCH_BOT_USERNAME,
 * TWITCH_BOT_TOKEN) and the EventSub webhook (TWITCH_EVENTSUB_SECRET), each on only when its
 * settings are present. With neither, Twitch stays "not configured".
 */
import { defineModule } from '../../module.js';
import { signedWebhookRoutes } from '../verified-webhook.js';
import { TwitchChat } from './twitch-chat.js';
import { twitchEventSubWebhook } from './twitch-eventsub.routes.js';

declare module '../../module.js' {
  interface Services {
    /** The Twitch chat bot; null when its settings are absent. */
    twitchChat: TwitchChat | null;
  }
}

export const twitchModule = defineModule({
  name: 'twitch',
  needs: ['integrations', 'leadership'],
  provides: ['twitchChat'],
  services: ({ config, clock, log, services }) => ({
    twitchChat:
      config.twitch.chat === null
        ? null
        : new TwitchChat({
            settings: config.twitch.chat,
            hub: services.integrations,
            clock,
            log: log.child({ integration: 'twitch' }),
          }),
  }),
  routes: ({ integrations }, { config, clock, log }) =>
    signedWebhookRoutes(config.twitch.eventSubSecret, twitchEventSubWebhook, { integrations, clock, log }),
  start: async ({ integrations, twitchChat, leadership }, { config }) => {
    if (twitchChat) {
      integrations.register({
        id: 'twitch',
        target: twitchChat.target,
        sendTestMessage: (text) => twitchChat.sendTestMessage(text),
        announce: (announcement) => twitchChat.announce(announcement),
      });
      // One chat bot for the site: on the leader only (issue 15). Webhooks land anywhere.
      await leadership.assign({
        name: 'twitch',
        lead: () => twitchChat.start(),
        follow: () => twitchChat.stop(),
      });
    } else if (config.twitch.eventSubSecret !== null) {
      // Webhooks only: nothing to connect to, so it is "connected" while configured.
      integrations.register({ id: 'twitch', target: '/api/webhooks/twitch' });
      integrations.setState('twitch', 'connected');
    }
  },
  stop: async ({ twitchChat }) => {
    await twitchChat?.stop();
  },
});
