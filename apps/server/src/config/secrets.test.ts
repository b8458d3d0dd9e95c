import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../test/app.js';
import { settingsOf } from './define.js';
import { CONFIG_SECTIONS } from './load.js';

/** A recognisable valid value for every secret setting (DATABASE_URL: the postgres project's own). */
const SAMPLES: Record<string, string> = {
  JWT_SECRET: 'jwt-secret-sample-0123456789-abcdefghij',
  RECAPTCHA_SECRET: 'recaptcha-secret-sample',
  SMTP_URL: 'smtp://mailer:smtp-password-sample@127.0.0.1:1',
  ADMIN_PASSWORD: 'admin-password-sample',
  JANUS_ADMIN_KEY: 'janus-admin-key-sample',
  TURN_SECRET: 'turn-secret-sample',
  TWITCH_CLIENT_SECRET: 'twitch-client-secret-sample',
  GOOGLE_CLIENT_SECRET: 'google-client-secret-sample',
  DISCORD_CLIENT_SECRET: 'discord-client-secret-sample',
  TIPS_WEBHOOK_SECRET: 'tips-webhook-secret-sample',
  TWITCH_BOT_TOKEN: 'oauth:twitch-bot-token-sample',
  TWITCH_EVENTSUB_SECRET: 'twitch-eventsub-secret-sample',
  YOUTUBE_API_KEY: 'youtube-api-key-sample',
  YOUTUBE_OAUTH_TOKEN: 'youtube-oauth-token-sample',
  DISCORD_BOT_TOKEN: 'discord-bot-token-sample',
  METRICS_TOKEN: 'metrics-token-sample',
};

const secrets = settingsOf(CONFIG_SECTIONS).filter((entry) => entry.secret);

describe('secret settings', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({
      ...SAMPLES,
      LOG_LEVEL: 'trace',
      ADMIN_EMAIL: 'operator@example.com',
      JANUS_URL: 'ws://127.0.0.1:1/janus',
      TURN_URLS: 'turn:turn.example:3478',
      // Each provider's secret goes with its id.
      TWITCH_CLIENT_ID: 'twitch-client-id',
      GOOGLE_CLIENT_ID: 'google-client-id',
      DISCORD_CLIENT_ID: 'discord-client-id',
      // Each integration configured, against nothing listening: they fail, log it and retry.
      TWITCH_CHANNEL: 'sample_channel',
      TWITCH_BOT_USERNAME: 'sample_bot',
      TWITCH_IRC_URL: 'ws://127.0.0.1:1',
      TWITCH_API_URL: 'http://127.0.0.1:1/helix',
      YOUTUBE_LIVE_CHAT_ID: 'sample-live-chat',
      YOUTUBE_API_URL: 'http://127.0.0.1:1/youtube/v3',
      DISCORD_GUILD_ID: '123456789',
      DISCORD_API_URL: 'http://127.0.0.1:1/api/v10',
    });
    await testApp.app.inject({ url: '/api/health' });
    await testApp.app.inject({ url: '/api/public-config' });
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('each has a sample here, so a new secret is checked too', () => {
    // DATABASE_URL is the postgres project's own; REDIS_URL needs it, and the scale-out tests' logs are checked there.
    expect([...Object.keys(SAMPLES), 'DATABASE_URL', 'REDIS_URL'].sort()).toEqual(
      secrets.map((entry) => entry.env).sort(),
    );
  });

  it('never reach the log, from start-up to the first requests at the most verbose level', () => {
    const log = testApp.logText();
    // The admin was seeded (its password went through) and the requests were logged.
    expect(log).toContain('operator@example.com');
    expect(log).toContain('/api/public-config');
    const values: Record<string, string | undefined> = {
      ...SAMPLES,
      DATABASE_URL: testApp.environment.env.DATABASE_URL,
    };
    for (const entry of secrets) {
      const value = values[entry.env];
      if (value !== undefined) expect(log, entry.env).not.toContain(value);
    }
  });
});
