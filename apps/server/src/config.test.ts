import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settingsOf } from './config/define.js';
import { CONFIG_SECTIONS, ConfigError, loadConfig } from './config.js';
import { DEFAULT_WEB_DIST_DIR } from './paths.js';

const SECRET = 'x'.repeat(32);

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig({ JWT_SECRET: SECRET, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('loadConfig', () => {
  it('has a default for every variable', () => {
    const config = loadConfig({ JWT_SECRET: SECRET });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('data'),
      databaseUrl: null,
      publicUrl: 'http://localhost:8080',
      jwtSecret: SECRET,
      accessTokenTtlSeconds: 900,
      logLevel: 'info',
      trustProxy: false,
      maxConnections: 10_000,
      socketsPerIp: 50,
      controlCodeTtlMinutes: 15,
      apiRateLimitPerMinute: 300,
      signupRateLimitPerHour: 10,
      webDistDir: DEFAULT_WEB_DIST_DIR,
      promoVideoUrl: '/media/promo.webm',
      community: {
        streaming: 'https://www.twitch.tv/telerace',
        video: 'https://www.youtube.com/@telerace',
        chat: 'https://discord.gg/telerace',
      },
      supportEmail: null,
      recaptchaSiteKey: null,
      recaptchaSecret: null,
      recaptchaVerifyUrl: 'https://www.google.com/recaptcha/api/siteverify',
      smtpUrl: null,
      mailFrom: 'Telerace <no-reply@localhost>',
      admin: null,
      demoAccounts: false,
      simCars: 0,
      janusUrl: null,
      janusAdminKey: null,
      janusApiUrl: null,
      video: 'auto',
      janusRtpHost: '127.0.0.1',
      janusRtpPorts: null,
      videoIngestPorts: null,
      janusPublicIp: null,
      janusCheckSeconds: 10,
      stunUrls: ['stun:stun.l.google.com:19302'],
      turnUrls: [],
      turnSecret: null,
      driveChannel: { enabled: true, publicIp: null, udpPorts: null, allowedNetworks: [] },
      lapCounter: 'car',
      zroundUrl: null,
      rotorhazardUrl: null,
      prizeClaimMinutes: 15,
      social: {
        twitch: {
          credentials: null,
          authUrl: 'https://id.twitch.tv/oauth2/authorize',
          tokenUrl: 'https://id.twitch.tv/oauth2/token',
          apiUrl: 'https://api.twitch.tv/helix',
        },
        youtube: {
          credentials: null,
          authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
          tokenUrl: 'https://oauth2.googleapis.com/token',
          apiUrl: 'https://www.googleapis.com/youtube/v3',
        },
        discord: {
          credentials: null,
          authUrl: 'https://discord.com/oauth2/authorize',
          tokenUrl: 'https://discord.com/api/oauth2/token',
          apiUrl: 'https://discord.com/api/v10',
        },
      },
      chatJoinCommand: '!join',
      chatLanguage: 'en',
      donationUsdRates: { USD: 1 },
      tipsWebhookSecret: null,
      twitch: { chat: null, eventSubSecret: null },
      youtubeChat: null,
      discordBot: null,
      redisUrl: null,
      redisNamespace: 'telerace',
      metricsPort: null,
      metricsHost: '127.0.0.1',
      metricsToken: null,
    });
  });

  it('finds the web build next to the server package, from src/ as from dist/', () => {
    expect(DEFAULT_WEB_DIST_DIR).toBe(resolve(import.meta.dirname, '../../web/dist'));
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: 'some/dir',
      DATABASE_URL: 'postgresql://u:p@db.example:5432/telerace',
      PUBLIC_URL: 'https://telerace.example/',
      JWT_SECRET: SECRET,
      ACCESS_TOKEN_TTL_SECONDS: '60',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '1',
      MAX_CONNECTIONS: '2000',
      SOCKETS_PER_IP: '5',
      CONTROL_CODE_TTL_MINUTES: '30',
      API_RATE_LIMIT_PER_MINUTE: '1000',
      SIGNUP_RATE_LIMIT_PER_HOUR: '50',
      WEB_DIST_DIR: 'web',
      PROMO_VIDEO_URL: 'https://www.youtube.com/embed/abc',
      COMMUNITY_STREAMING_URL: '',
      COMMUNITY_VIDEO_URL: '/videos',
      COMMUNITY_CHAT_URL: 'https://chat.example/invite',
      SUPPORT_EMAIL: 'help@racing.example',
      RECAPTCHA_SITE_KEY: 'site-key',
      RECAPTCHA_SECRET: 'recaptcha-secret',
      RECAPTCHA_VERIFY_URL: 'http://127.0.0.1:9999/verify',
      SMTP_URL: 'smtp://user:pass@mail.example:587',
      MAIL_FROM: 'Race <race@example.com>',
      ADMIN_EMAIL: 'Boss@Example.com',
      ADMIN_PASSWORD: 'a long admin password',
      DEMO_ACCOUNTS: 'yes',
      SIM_CARS: '2',
      JANUS_URL: 'wss://janus.example/janus',
      JANUS_ADMIN_KEY: 'janus-admin-key',
      JANUS_CHECK_SECONDS: '30',
      JANUS_RTP_PORTS: '20000-20999',
      VIDEO_INGEST_PORTS: '21000-21099',
      JANUS_PUBLIC_IP: '203.0.113.10',
      VIDEO: 'auto',
      STUN_URLS: 'stun:stun.example:3478, stuns:stun.example:5349',
      TURN_URLS: 'turn:turn.example:3478?transport=udp,turns:turn.example:5349',
      TURN_SECRET: 'turn-secret',
      DRIVE_CHANNEL: 'off',
      DRIVE_CHANNEL_PUBLIC_IP: '203.0.113.7',
      DRIVE_CHANNEL_UDP_PORTS: '40000-40100',
      DRIVE_CHANNEL_ALLOWED_NETWORKS: '192.168.1.0/24, fd00::/8',
      LAP_COUNTER: 'zround',
      ZROUND_URL: 'tcp://decoder.local:6000',
      ROTORHAZARD_URL: 'http://rotorhazard.local',
      PRIZE_CLAIM_MINUTES: '30',
      TWITCH_CLIENT_ID: 'twitch-id',
      TWITCH_CLIENT_SECRET: 'twitch-secret',
      TWITCH_AUTH_URL: 'http://oauth.local/twitch/authorize',
      TWITCH_TOKEN_URL: 'http://oauth.local/twitch/token',
      TWITCH_API_URL: 'http://oauth.local/twitch/api',
      GOOGLE_CLIENT_ID: 'google-id',
      GOOGLE_CLIENT_SECRET: 'google-secret',
      GOOGLE_AUTH_URL: 'http://oauth.local/google/authorize',
      GOOGLE_TOKEN_URL: 'http://oauth.local/google/token',
      YOUTUBE_API_URL: 'http://oauth.local/youtube/api',
      DISCORD_CLIENT_ID: 'discord-id',
      DISCORD_CLIENT_SECRET: 'discord-secret',
      DISCORD_AUTH_URL: 'http://oauth.local/discord/authorize',
      DISCORD_TOKEN_URL: 'http://oauth.local/discord/token',
      DISCORD_API_URL: 'http://oauth.local/discord/api',
      CHAT_JOIN_COMMAND: '!ride',
      CHAT_LANGUAGE: 'fr',
      DONATION_USD_RATES: 'EUR=1.08,cad=0.73',
      TIPS_WEBHOOK_SECRET: 'tips-secret-of-16+',
      TWITCH_CHANNEL: '#MyChannel',
      TWITCH_BOT_USERNAME: 'telerace_bot',
      TWITCH_BOT_TOKEN: 'oauth:abc',
      TWITCH_IRC_URL: 'ws://127.0.0.1:9000',
      TWITCH_EVENTSUB_SECRET: 'eventsub-secret',
      YOUTUBE_API_KEY: 'yt-key',
      YOUTUBE_OAUTH_TOKEN: 'yt-token',
      YOUTUBE_LIVE_CHAT_ID: 'chat-1',
      YOUTUBE_CHANNEL_ID: 'UC123',
      DISCORD_BOT_TOKEN: 'bot-token',
      DISCORD_GUILD_ID: '123456',
      DISCORD_CHANNEL_ID: '234567',
      DISCORD_LOYALTY_ROLE_ID: '345678',
      REDIS_URL: 'redis://127.0.0.1:6379',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      METRICS_TOKEN: 'metrics-token-of-16+',
    });
    expect(config).toEqual({
      port: 9000,
      host: '0.0.0.0',
      dataDir: resolve('some/dir'),
      databaseUrl: 'postgresql://u:p@db.example:5432/telerace',
      publicUrl: 'https://telerace.example',
      jwtSecret: SECRET,
      accessTokenTtlSeconds: 60,
      logLevel: 'debug',
      trustProxy: 1,
      maxConnections: 2000,
      socketsPerIp: 5,
      controlCodeTtlMinutes: 30,
      apiRateLimitPerMinute: 1000,
      signupRateLimitPerHour: 50,
      webDistDir: resolve('web'),
      promoVideoUrl: 'https://www.youtube.com/embed/abc',
      community: { streaming: null, video: '/videos', chat: 'https://chat.example/invite' },
      supportEmail: 'help@racing.example',
      recaptchaSiteKey: 'site-key',
      recaptchaSecret: 'recaptcha-secret',
      recaptchaVerifyUrl: 'http://127.0.0.1:9999/verify',
      smtpUrl: 'smtp://user:pass@mail.example:587',
      mailFrom: 'Race <race@example.com>',
      admin: { email: 'boss@example.com', password: 'a long admin password' },
      demoAccounts: true,
      simCars: 2,
      janusUrl: 'wss://janus.example/janus',
      janusAdminKey: 'janus-admin-key',
      janusApiUrl: 'https://janus.example:8088/janus',
      video: 'auto',
      janusRtpHost: '127.0.0.1',
      janusRtpPorts: { min: 20000, max: 20999 },
      videoIngestPorts: { min: 21000, max: 21099 },
      janusPublicIp: '203.0.113.10',
      janusCheckSeconds: 30,
      stunUrls: ['stun:stun.example:3478', 'stuns:stun.example:5349'],
      turnUrls: ['turn:turn.example:3478?transport=udp', 'turns:turn.example:5349'],
      turnSecret: 'turn-secret',
      driveChannel: {
        enabled: false,
        publicIp: '203.0.113.7',
        udpPorts: { min: 40000, max: 40100 },
        allowedNetworks: [
          { address: '192.168.1.0', prefix: 24 },
          { address: 'fd00::', prefix: 8 },
        ],
      },
      lapCounter: 'zround',
      zroundUrl: 'tcp://decoder.local:6000',
      rotorhazardUrl: 'http://rotorhazard.local',
      prizeClaimMinutes: 30,
      social: {
        twitch: {
          credentials: { clientId: 'twitch-id', clientSecret: 'twitch-secret' },
          authUrl: 'http://oauth.local/twitch/authorize',
          tokenUrl: 'http://oauth.local/twitch/token',
          apiUrl: 'http://oauth.local/twitch/api',
        },
        youtube: {
          credentials: { clientId: 'google-id', clientSecret: 'google-secret' },
          authUrl: 'http://oauth.local/google/authorize',
          tokenUrl: 'http://oauth.local/google/token',
          apiUrl: 'http://oauth.local/youtube/api',
        },
        discord: {
          credentials: { clientId: 'discord-id', clientSecret: 'discord-secret' },
          authUrl: 'http://oauth.local/discord/authorize',
          tokenUrl: 'http://oauth.local/discord/token',
          apiUrl: 'http://oauth.local/discord/api',
        },
      },
      chatJoinCommand: '!ride',
      chatLanguage: 'fr',
      donationUsdRates: { USD: 1, EUR: 1.08, CAD: 0.73 },
      tipsWebhookSecret: 'tips-secret-of-16+',
      twitch: {
        chat: {
          channel: 'mychannel',
          botUsername: 'telerace_bot',
          botToken: 'oauth:abc',
          ircUrl: 'ws://127.0.0.1:9000',
        },
        eventSubSecret: 'eventsub-secret',
      },
      youtubeChat: { apiKey: 'yt-key', oauthToken: 'yt-token', liveChatId: 'chat-1', channelId: 'UC123' },
      discordBot: { botToken: 'bot-token', guildId: '123456', channelId: '234567', loyaltyRoleId: '345678' },
      redisUrl: 'redis://127.0.0.1:6379',
      redisNamespace: 'telerace',
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      metricsToken: 'metrics-token-of-16+',
    });
  });

  it('refuses integration settings that only make sense together, and a malformed rate table', () => {
    expect(() => loadConfig({ JWT_SECRET: SECRET, TWITCH_CHANNEL: 'x' })).toThrow(/TWITCH_BOT_USERNAME/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, YOUTUBE_API_KEY: 'k' })).toThrow(/YOUTUBE_LIVE_CHAT_ID/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, DISCORD_BOT_TOKEN: 't' })).toThrow(/DISCORD_GUILD_ID/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, DONATION_USD_RATES: 'EUR:1.08' })).toThrow(
      /DONATION_USD_RATES/,
    );
    expect(() => loadConfig({ JWT_SECRET: SECRET, CHAT_JOIN_COMMAND: '! join' })).toThrow(
      /CHAT_JOIN_COMMAND/,
    );
  });

  it('refuses REDIS_URL without DATABASE_URL: the embedded database belongs to one process', () => {
    expect(() => loadConfig({ JWT_SECRET: SECRET, REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      /REDIS_URL needs DATABASE_URL/,
    );
    expect(() => loadConfig({ JWT_SECRET: SECRET, REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL/);
  });

  it('refuses a metrics server open to the network without METRICS_TOKEN', () => {
    expect(() => loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })).toThrow(
      'Invalid configuration: METRICS_HOST 0.0.0.0 is not loopback: set METRICS_TOKEN',
    );
    for (const host of ['127.0.0.1', '127.0.0.53', '::1', 'localhost'])
      expect(loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '9464', METRICS_HOST: host }).metricsHost).toBe(
        host,
      );
    expect(loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '65536' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, METRICS_TOKEN: 'short' })).toThrow(
      'METRICS_TOKEN must be at least 16 characters long (got a value of 5 characters)',
    );
  });

  it('derives PUBLIC_URL from PORT and treats empty variables as unset', () => {
    const config = loadConfig({ JWT_SECRET: SECRET, PORT: '3000', HOST: '', LOG_LEVEL: '' });
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.host).toBe('127.0.0.1');
    expect(config.logLevel).toBe('info');
  });

  it('an empty PROMO_VIDEO_URL means no promo video', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, PROMO_VIDEO_URL: '' }).promoVideoUrl).toBeNull();
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")'],
    [
      { SUPPORT_EMAIL: 'help' },
      'Invalid configuration: SUPPORT_EMAIL must be an e-mail address (got "help")',
    ],
    [{ PORT: '0' }, 'Invalid configuration: PORT must be an integer between 1 and 65535 (got "0")'],
    [{ PORT: '65536' }, 'Invalid configuration: PORT must be an integer between 1 and 65535 (got "65536")'],
    [{ PORT: '80.5' }, 'Invalid configuration: PORT must be an integer between 1 and 65535 (got "80.5")'],
    [
      { DATABASE_URL: 'mysql://localhost/db' },
      'Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL (got a value of 20 characters)',
    ],
    [
      { PUBLIC_URL: 'ftp://example.com' },
      'Invalid configuration: PUBLIC_URL must be an http:// or https:// URL (got "ftp://example.com")',
    ],
    [
      { JWT_SECRET: 'short' },
      'Invalid configuration: JWT_SECRET must be at least 32 characters long (got a value of 5 characters)',
    ],
    [
      { LOG_LEVEL: 'verbose' },
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    ],
    [
      { ACCESS_TOKEN_TTL_SECONDS: '3600' },
      'Invalid configuration: ACCESS_TOKEN_TTL_SECONDS must be an integer between 10 and 900 (got "3600")',
    ],
    [
      { JANUS_CHECK_SECONDS: '0' },
      'Invalid configuration: JANUS_CHECK_SECONDS must be an integer between 1 and 300 (got "0")',
    ],
    [
      { JANUS_CHECK_SECONDS: '1.5' },
      'Invalid configuration: JANUS_CHECK_SECONDS must be an integer between 1 and 300 (got "1.5")',
    ],
    [
      { TRUST_PROXY: 'maybe' },
      'Invalid configuration: TRUST_PROXY must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs (got "maybe")',
    ],
    [
      { TRUST_PROXY: 'true' },
      `Invalid configuration: TRUST_PROXY must be the number of proxy hops (e.g. 1) or the proxies' addresses, not true (any client could then choose its own IP) (got "true")`,
    ],
    [
      { TRUST_PROXY: 'YES' },
      `Invalid configuration: TRUST_PROXY must be the number of proxy hops (e.g. 1) or the proxies' addresses, not true (any client could then choose its own IP) (got "YES")`,
    ],
    [
      { TRUST_PROXY: '10.0.0.1, nginx.local' },
      'Invalid configuration: TRUST_PROXY must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs (got "10.0.0.1, nginx.local")',
    ],
    [
      { TRUST_PROXY: ',' },
      'Invalid configuration: TRUST_PROXY must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs (got ",")',
    ],
    [
      { TRUST_PROXY: '1.5' },
      'Invalid configuration: TRUST_PROXY must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs (got "1.5")',
    ],
    [{ DEMO_ACCOUNTS: 'sure' }, 'Invalid configuration: DEMO_ACCOUNTS must be true or false (got "sure")'],
    [{ SIM_CARS: '21' }, 'Invalid configuration: SIM_CARS must be an integer between 0 and 20 (got "21")'],
    [{ SIM_CARS: '-1' }, 'Invalid configuration: SIM_CARS must be an integer between 0 and 20 (got "-1")'],
    [
      { JANUS_URL: 'http://janus.example' },
      'Invalid configuration: JANUS_URL must be a ws:// or wss:// URL (got "http://janus.example")',
    ],
    [{ JANUS_API_URL: 'http://janus.example/janus' }, 'Invalid configuration: JANUS_API_URL needs JANUS_URL'],
    [
      { JANUS_URL: 'ws://j.example', JANUS_API_URL: 'ws://j.example' },
      'Invalid configuration: JANUS_API_URL must be an http:// or https:// URL (got "ws://j.example")',
    ],
    [{ VIDEO: 'on' }, 'Invalid configuration: VIDEO must be auto or off (got "on")'],
    [
      { JANUS_RTP_HOST: 'a b' },
      'Invalid configuration: JANUS_RTP_HOST must be a host name or IP address (got "a b")',
    ],
    [
      { STUN_URLS: 'turn:x.example' },
      'Invalid configuration: STUN_URLS must be comma-separated stun: or stuns: URLs (got "turn:x.example")',
    ],
    [
      { TURN_URLS: 'turn:a.example,stun:b.example', TURN_SECRET: 'secret-value' },
      'Invalid configuration: TURN_URLS must be comma-separated turn: or turns: URLs (got "turn:a.example,stun:b.example")',
    ],
    [
      { TURN_URLS: 'turn:a.example' },
      'Invalid configuration: TURN_URLS and TURN_SECRET must be set together',
    ],
    [
      { TURN_SECRET: 'secret-value' },
      'Invalid configuration: TURN_URLS and TURN_SECRET must be set together',
    ],
    [{ DRIVE_CHANNEL: 'yes' }, 'Invalid configuration: DRIVE_CHANNEL must be on or off (got "yes")'],
    ...['192.168.1.0', '192.168.1.0/33', 'lan.example/24', '192.168.1.0/24;10.0.0.0/8'].map(
      (networks): [Record<string, string>, string] => [
        { DRIVE_CHANNEL_ALLOWED_NETWORKS: networks },
        `Invalid configuration: DRIVE_CHANNEL_ALLOWED_NETWORKS must be comma-separated networks address/prefix (e.g. 192.168.1.0/24, fd00::/8) (got ${JSON.stringify(networks)})`,
      ],
    ),
    [
      { DRIVE_CHANNEL_PUBLIC_IP: 'vm.example.com' },
      'Invalid configuration: DRIVE_CHANNEL_PUBLIC_IP must be an IPv4 or IPv6 address (got "vm.example.com")',
    ],
    [
      { DRIVE_CHANNEL_PUBLIC_IP: '203.0.113.256' },
      'Invalid configuration: DRIVE_CHANNEL_PUBLIC_IP must be an IPv4 or IPv6 address (got "203.0.113.256")',
    ],
    [
      { DRIVE_CHANNEL_PUBLIC_IP: '0.0.0.0' },
      'Invalid configuration: DRIVE_CHANNEL_PUBLIC_IP must be the address browsers reach the server at, not 0.0.0.0 or :: (got "0.0.0.0")',
    ],
    [
      { LAP_COUNTER: 'lap' },
      'Invalid configuration: LAP_COUNTER must be one of car, zround, rotorhazard (got "lap")',
    ],
    [
      { LAP_COUNTER: 'zround' },
      'Invalid configuration: LAP_COUNTER=zround needs ZROUND_URL (tcp://host:port)',
    ],
    [
      { ZROUND_URL: 'tcp://decoder.local' },
      'Invalid configuration: ZROUND_URL must be a tcp://host:port URL (got "tcp://decoder.local")',
    ],
    [
      { ZROUND_URL: 'http://decoder.local:6000' },
      'Invalid configuration: ZROUND_URL must be a tcp:// URL (got "http://decoder.local:6000")',
    ],
    [
      { LAP_COUNTER: 'rotorhazard' },
      'Invalid configuration: LAP_COUNTER=rotorhazard needs ROTORHAZARD_URL (http(s)://host:port)',
    ],
    [
      { ROTORHAZARD_URL: 'ws://rh.local' },
      'Invalid configuration: ROTORHAZARD_URL must be an http:// or https:// URL (got "ws://rh.local")',
    ],
    [
      { JANUS_ADMIN_KEY: 'secret-value' },
      'Invalid configuration: JANUS_ADMIN_KEY needs JANUS_URL (the Janus the server runs has its own key)',
    ],
    [
      { SMTP_URL: 'http://user:hunter2@mail.example' },
      'Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL (got a value of 32 characters)',
    ],
    [
      { RECAPTCHA_VERIFY_URL: 'not a url' },
      'Invalid configuration: RECAPTCHA_VERIFY_URL must be an http:// or https:// URL (got "not a url")',
    ],
    [
      { ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'short' },
      'Invalid configuration: ADMIN_PASSWORD must be 8–128 characters long (got a value of 5 characters)',
    ],
    [
      { ADMIN_EMAIL: 'boss@example.com' },
      'Invalid configuration: ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
    ],
    [
      { ADMIN_PASSWORD: 'a long admin password' },
      'Invalid configuration: ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
    ],
    [
      { ADMIN_EMAIL: 'not-an-email', ADMIN_PASSWORD: 'a long admin password' },
      'Invalid configuration: ADMIN_EMAIL must be an e-mail address (got "not-an-email")',
    ],
    [
      { API_RATE_LIMIT_PER_MINUTE: '0' },
      'Invalid configuration: API_RATE_LIMIT_PER_MINUTE must be a positive integer (got "0")',
    ],
    [
      { PROMO_VIDEO_URL: 'promo.webm' },
      'Invalid configuration: PROMO_VIDEO_URL must start with / or http(s):// (got "promo.webm")',
    ],
    [
      { COMMUNITY_STREAMING_URL: 'twitch.tv/x' },
      'Invalid configuration: COMMUNITY_STREAMING_URL must start with / or http(s):// (got "twitch.tv/x")',
    ],
    [
      { COMMUNITY_VIDEO_URL: '//youtube.com' },
      'Invalid configuration: COMMUNITY_VIDEO_URL must start with / or http(s):// (got "//youtube.com")',
    ],
    [
      { COMMUNITY_CHAT_URL: 'https://' },
      'Invalid configuration: COMMUNITY_CHAT_URL must be a valid URL (got "https://")',
    ],
  ])('rejects %o with one line naming the variable', (env, message) => {
    const error = errorOf(env);
    expect(error).toBe(message);
    expect(error).not.toContain('\n');
  });

  it.each([
    ['1', 1],
    ['2', 2],
    ['0', false],
    ['false', false],
    ['no', false],
    ['', false],
    ['127.0.0.1', ['127.0.0.1']],
    [' 10.0.0.0/8 , 192.168.1.10,::1, fd00::/8 ', ['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/8']],
  ])('TRUST_PROXY=%j trusts %j (hops, or the listed proxies only)', (value, expected) => {
    expect(loadConfig({ JWT_SECRET: SECRET, TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('an empty STUN_URLS means no STUN server; blanks between commas are ignored', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, STUN_URLS: '' }).stunUrls).toEqual([]);
    expect(loadConfig({ JWT_SECRET: SECRET, STUN_URLS: ' , stun:a.example:3478,' }).stunUrls).toEqual([
      'stun:a.example:3478',
    ]);
  });

  it.each([
    '40000',
    '40000-',
    '40000:40100',
    ' 40000-40100',
    '1023-2000',
    '60000-65536',
    '40100-40000',
    // werift refuses a range of one port.
    '40000-40000',
  ])('rejects DRIVE_CHANNEL_UDP_PORTS=%j with one line naming the variable', (range) => {
    expect(errorOf({ DRIVE_CHANNEL_UDP_PORTS: range })).toBe(
      `Invalid configuration: DRIVE_CHANNEL_UDP_PORTS must be a UDP port range min-max (e.g. 40000-40100) within 1024–65535, min below max (got ${JSON.stringify(range)})`,
    );
  });

  it.each(['198.51.100.4', '2001:db8::7'])(
    'DRIVE_CHANNEL_PUBLIC_IP takes an IPv4 or IPv6 address: %s',
    (ip) => {
      expect(loadConfig({ JWT_SECRET: SECRET, DRIVE_CHANNEL_PUBLIC_IP: ip }).driveChannel.publicIp).toBe(ip);
    },
  );

  it('DRIVE_CHANNEL_UDP_PORTS takes the whole range, its ends included', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, DRIVE_CHANNEL_UDP_PORTS: '1024-65535' }).driveChannel).toEqual({
      enabled: true,
      publicIp: null,
      udpPorts: { min: 1024, max: 65535 },
      allowedNetworks: [],
    });
    expect(
      loadConfig({ JWT_SECRET: SECRET, DRIVE_CHANNEL_UDP_PORTS: '40000-40001' }).driveChannel.udpPorts,
    ).toEqual({ min: 40000, max: 40001 });
  });

  it('never echoes the TURN secret or the Janus admin key', () => {
    const message = errorOf({
      TURN_SECRET: 'turn-secret-value',
      JANUS_ADMIN_KEY: 'janus-key-value',
      PORT: 'x',
    });
    expect(message).not.toContain('turn-secret-value');
    expect(message).not.toContain('janus-key-value');
  });

  it('names every wrong variable on the same line', () => {
    expect(errorOf({ PORT: 'abc', TRUST_PROXY: 'maybe' })).toBe(
      'Invalid configuration: PORT must be an integer between 1 and 65535 (got "abc"); TRUST_PROXY must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs (got "maybe")',
    );
  });

  it('documents every variable it reads, each once', () => {
    const settings = settingsOf(CONFIG_SECTIONS);
    expect(new Set(settings.map((entry) => entry.env)).size).toBe(settings.length);
    for (const entry of settings) expect(entry.doc.length).toBeGreaterThan(10);
  });
});

describe('generated JWT secret', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'telerace-config-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is generated once, kept with mode 0600 and reused on the next start', async () => {
    const nested = join(dataDir, 'not', 'yet', 'there');
    const first = loadConfig({ DATA_DIR: nested });
    expect(first.jwtSecret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    const file = join(nested, 'jwt-secret');
    expect(await readFile(file, 'utf8')).toBe(first.jwtSecret);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = loadConfig({ DATA_DIR: nested });
    expect(second.jwtSecret).toBe(first.jwtSecret);
  });

  it('is not written when JWT_SECRET is set', async () => {
    loadConfig({ DATA_DIR: dataDir, JWT_SECRET: SECRET });
    await expect(stat(join(dataDir, 'jwt-secret'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a damaged secret file instead of silently signing everybody out', async () => {
    await writeFile(join(dataDir, 'jwt-secret'), 'too-short');
    expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(
      new ConfigError(
        `Invalid configuration: ${join(dataDir, 'jwt-secret')} holds a secret shorter than 32 characters (delete it to generate a new one, or set JWT_SECRET)`,
      ),
    );
  });

  it('reports an unusable DATA_DIR on one line', async () => {
    const file = join(dataDir, 'a-file');
    await writeFile(file, '');
    expect(() => loadConfig({ DATA_DIR: file })).toThrow(
      `Invalid configuration: DATA_DIR ${JSON.stringify(file)} is not usable for jwt-secret (EEXIST)`,
    );
  });
});
