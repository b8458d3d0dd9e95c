/**
 * The YouTube integration's settings (docs/integrations.md "YouTube"): live chat read by polling
 * `liveChatMessages.list` on the Data API (`YOUTUBE_API_URL`, shared with the social sign-in).
 */
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';

export interface YoutubeChatSettings {
  /** An API key, or the channel owner's OAuth access token (needed to answer in chat). */
  apiKey: string | null;
  oauthToken: string | null;
  /** The live chat to read; else discovered from the channel's active broadcast. */
  liveChatId: string | null;
  channelId: string | null;
}

export const youtubeConfig = defineSection(
  {
    youtubeApiKey: setting({
      env: 'YOUTUBE_API_KEY',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'A YouTube Data API key to read the live chat (or `YOUTUBE_OAUTH_TOKEN`). Unset with no token: YouTube chat is not configured.',
      secret: true,
    }),
    youtubeOauthToken: setting({
      env: 'YOUTUBE_OAUTH_TOKEN',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'An OAuth access token of the channel owner (scope youtube.force-ssl): reads the live chat and lets the bot answer in it.',
      secret: true,
    }),
    youtubeLiveChatId: setting({
      env: 'YOUTUBE_LIVE_CHAT_ID',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'The live chat to read. Unset: discovered from the active broadcast of `YOUTUBE_CHANNEL_ID`.',
    }),
    youtubeChannelId: setting({
      env: 'YOUTUBE_CHANNEL_ID',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'The channel whose active broadcast’s chat is read when `YOUTUBE_LIVE_CHAT_ID` is unset.',
    }),
  },
  (values) => {
    const credentials = values.youtubeApiKey !== null || values.youtubeOauthToken !== null;
    const chat = values.youtubeLiveChatId !== null || values.youtubeChannelId !== null;
    if (credentials !== chat) {
      throw configError(
        'YouTube chat needs YOUTUBE_API_KEY or YOUTUBE_OAUTH_TOKEN, and YOUTUBE_LIVE_CHAT_ID or YOUTUBE_CHANNEL_ID',
      );
    }
    const youtubeChat: YoutubeChatSettings | null = credentials
      ? {
          apiKey: values.youtubeApiKey,
          oauthToken: values.youtubeOauthToken,
          liveChatId: values.youtubeLiveChatId,
          channelId: values.youtubeChannelId,
        }
      : null;
    return { youtubeChat };
  },
);
