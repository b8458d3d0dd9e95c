/**
 * Settings of social sign-in (docs/social-sign-in.md): each provider's app credentials and its
 * endpoints. The names are fixed by issue 13 so operators and checks can rely on them. Every URL
 * defaults to the real provider and can point at a local stand-in (tests, staging). A provider
 * without credentials is shown as unavailable, never broken; an id without its secret (or the
 * reverse) stops the server, since it can only be a mistake.
 */
import type { Platform } from '@telerace/protocol';
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import { httpUrl } from '../../config/schemas.js';

/** One provider's part of Config. */
export interface ProviderSettings {
  /** Null: the provider is not configured (its buttons are disabled). */
  credentials: { clientId: string; clientSecret: string } | null;
  authUrl: string;
  tokenUrl: string;
  /** Where the identity is read (Twitch Helix, YouTube Data API, Discord API). */
  apiUrl: string;
}

export type SocialSettings = Record<Platform, ProviderSettings>;

const clientId = (env: string, app: string) =>
  setting({
    env,
    schema: z.string().trim().min(1, 'must not be blank'),
    default: null,
    doc: `Client id of the ${app} app (with \`${env.replace('_ID', '_SECRET')}\`). Unset: sign-in with this provider is shown as unavailable.`,
  });

const clientSecret = (env: string, app: string) =>
  setting({
    env,
    schema: z.string().trim().min(1, 'must not be blank'),
    default: null,
    doc: `Client secret of the ${app} app (with \`${env.replace('_SECRET', '_ID')}\`).`,
    secret: true,
  });

const endpoint = (env: string, fallback: string, doc: string) =>
  setting({ env, schema: httpUrl(), default: fallback, doc });

export const socialConfig = defineSection(
  {
    twitchClientId: clientId('TWITCH_CLIENT_ID', 'Twitch'),
    twitchClientSecret: clientSecret('TWITCH_CLIENT_SECRET', 'Twitch'),
    twitchAuthUrl: endpoint(
      'TWITCH_AUTH_URL',
      'https://id.twitch.tv/oauth2/authorize',
      'Twitch authorization endpoint (a local stand-in in tests and staging).',
    ),
    twitchTokenUrl: endpoint(
      'TWITCH_TOKEN_URL',
      'https://id.twitch.tv/oauth2/token',
      'Twitch token endpoint.',
    ),
    twitchApiUrl: endpoint(
      'TWITCH_API_URL',
      'https://api.twitch.tv/helix',
      'Twitch Helix API: the member is `GET {api}/users`.',
    ),
    googleClientId: clientId('GOOGLE_CLIENT_ID', 'Google (YouTube)'),
    googleClientSecret: clientSecret('GOOGLE_CLIENT_SECRET', 'Google (YouTube)'),
    googleAuthUrl: endpoint(
      'GOOGLE_AUTH_URL',
      'https://accounts.google.com/o/oauth2/v2/auth',
      'Google authorization endpoint.',
    ),
    googleTokenUrl: endpoint(
      'GOOGLE_TOKEN_URL',
      'https://oauth2.googleapis.com/token',
      'Google token endpoint.',
    ),
    youtubeApiUrl: endpoint(
      'YOUTUBE_API_URL',
      'https://www.googleapis.com/youtube/v3',
      'YouTube Data API: the member is their channel, `GET {api}/channels?part=snippet&mine=true`.',
    ),
    discordClientId: clientId('DISCORD_CLIENT_ID', 'Discord'),
    discordClientSecret: clientSecret('DISCORD_CLIENT_SECRET', 'Discord'),
    discordAuthUrl: endpoint(
      'DISCORD_AUTH_URL',
      'https://discord.com/oauth2/authorize',
      'Discord authorization endpoint.',
    ),
    discordTokenUrl: endpoint(
      'DISCORD_TOKEN_URL',
      'https://discord.com/api/oauth2/token',
      'Discord token endpoint.',
    ),
    discordApiUrl: endpoint(
      'DISCORD_API_URL',
      'https://discord.com/api/v10',
      'Discord API: the member is `GET {api}/users/@me`.',
    ),
  },
  (values) => {
    const credentials = (idEnv: string, id: string | null, secret: string | null) => {
      if ((id === null) !== (secret === null)) {
        throw configError(`${idEnv} and ${idEnv.replace('_ID', '_SECRET')} must be set together`);
      }
      return id !== null && secret !== null ? { clientId: id, clientSecret: secret } : null;
    };
    const social: SocialSettings = {
      twitch: {
        credentials: credentials('TWITCH_CLIENT_ID', values.twitchClientId, values.twitchClientSecret),
        authUrl: values.twitchAuthUrl,
        tokenUrl: values.twitchTokenUrl,
        apiUrl: values.twitchApiUrl,
      },
      youtube: {
        credentials: credentials('GOOGLE_CLIENT_ID', values.googleClientId, values.googleClientSecret),
        authUrl: values.googleAuthUrl,
        tokenUrl: values.googleTokenUrl,
        apiUrl: values.youtubeApiUrl,
      },
      discord: {
        credentials: credentials('DISCORD_CLIENT_ID', values.discordClientId, values.discordClientSecret),
        authUrl: values.discordAuthUrl,
        tokenUrl: values.discordTokenUrl,
        apiUrl: values.discordApiUrl,
      },
    };
    return { social };
  },
);
