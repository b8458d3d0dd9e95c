/**
 * The Twitch integration's settings (docs/integrations.md "Twitch"): the chat bot (tmi.js) and the
 * EventSub webhook. The Helix API and the app's credentials are the social sign-in's
 * (`TWITCH_API_URL`, `TWITCH_CLIENT_ID`/`SECRET`, `TWITCH_TOKEN_URL`).
 */
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import { urlOf } from '../../config/schemas.js';

export interface TwitchChatSettings {
  /** The channel's login, lower case, without `#`. */
  channel: string;
  botUsername: string;
  /** `oauth:…` */
  botToken: string;
  /** IRC over WebSocket; host, port and TLS are taken from it. */
  ircUrl: string;
}

export const twitchConfig = defineSection(
  {
    twitchChannel: setting({
      env: 'TWITCH_CHANNEL',
      schema: z
        .string()
        .trim()
        .transform((name) => name.replace(/^#/, '').toLowerCase())
        .pipe(z.string().regex(/^\w{1,25}$/, 'a Twitch login')),
      default: null,
      doc: 'The Twitch channel whose chat the bot reads (with `TWITCH_BOT_USERNAME` and `TWITCH_BOT_TOKEN`). Unset: the Twitch chat is not configured.',
    }),
    twitchBotUsername: setting({
      env: 'TWITCH_BOT_USERNAME',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'The bot account’s login.',
    }),
    twitchBotToken: setting({
      env: 'TWITCH_BOT_TOKEN',
      schema: z
        .string()
        .trim()
        .regex(/^oauth:\S+$/, 'must start with oauth:'),
      default: null,
      doc: 'The bot account’s chat token, `oauth:…` (scopes chat:read chat:edit).',
      secret: true,
    }),
    twitchIrcUrl: setting({
      env: 'TWITCH_IRC_URL',
      schema: urlOf(['ws', 'wss'], 'a'),
      default: 'wss://irc-ws.chat.twitch.tv:443',
      doc: 'Twitch chat (IRC over WebSocket); a local stand-in in tests.',
    }),
    twitchEventSubSecret: setting({
      env: 'TWITCH_EVENTSUB_SECRET',
      schema: z.string().min(10).max(100),
      default: null,
      doc: 'Secret of the EventSub webhook subscriptions (10–100 characters): subscriptions, cheers. Unset: `POST /api/webhooks/twitch` is not registered (404).',
      secret: true,
    }),
  },
  (values) => {
    const chatParts = [values.twitchChannel, values.twitchBotUsername, values.twitchBotToken];
    if (chatParts.some((part) => part === null) && chatParts.some((part) => part !== null)) {
      throw configError('TWITCH_CHANNEL, TWITCH_BOT_USERNAME and TWITCH_BOT_TOKEN must be set together');
    }
    const chat: TwitchChatSettings | null =
      values.twitchChannel !== null && values.twitchBotUsername !== null && values.twitchBotToken !== null
        ? {
            channel: values.twitchChannel,
            botUsername: values.twitchBotUsername,
            botToken: values.twitchBotToken,
            ircUrl: values.twitchIrcUrl,
          }
        : null;
    return { twitch: { chat, eventSubSecret: values.twitchEventSubSecret } };
  },
);
