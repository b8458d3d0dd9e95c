/**
 * YouTube live chat (docs/integrations.md "YouTube"): on when YOUTUBE_API_KEY or
 * YOUTUBE_OAUTH_TOKEN and YOUTUBE_LIVE_CHAT_ID or YOUTUBE_CHANNEL_ID are set; otherwise the
 * service is null and the integration stays "not configured".
 */
import { defineModule } from '../../module.js';
import { YoutubeApi } from './youtube-api.js';
import { YoutubeChat } from './youtube-chat.js';

declare module '../../module.js' {
  interface Services {
    /** The live chat reader; null when YouTube chat is not configured. */
    youtubeChat: YoutubeChat | null;
  }
}

export const youtubeModule = defineModule({
  name: 'youtube',
  needs: ['integrations', 'leadership'],
  provides: ['youtubeChat'],
  services: ({ config, clock, log, services }) => {
    const settings = config.youtubeChat;
    if (settings === null) return { youtubeChat: null };
    return {
      youtubeChat: new YoutubeChat({
        api: new YoutubeApi({
          apiUrl: config.social.youtube.apiUrl,
          credentials: { apiKey: settings.apiKey, oauthToken: settings.oauthToken },
        }),
        hub: services.integrations,
        clock,
        log: log.child({ module: 'youtube' }),
        liveChatId: settings.liveChatId,
        channelId: settings.channelId,
      }),
    };
  },
  // In the background: the server starts whether or not YouTube answers.
  // One reader of the live chat for the site: on the leader only (issue 15).
  start: async ({ youtubeChat, leadership }) => {
    if (youtubeChat)
      await leadership.assign({
        name: 'youtube',
        lead: () => youtubeChat.start(),
        follow: () => youtubeChat.stop(),
      });
  },
  stop: ({ youtubeChat }) => youtubeChat?.stop(),
});
