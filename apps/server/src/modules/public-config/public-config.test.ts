import { PublicConfig } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';

describe('GET /api/public-config', () => {
  let close = async () => {};
  afterEach(() => close());

  it('tells the web app the promo video, community links and bot-check key', async () => {
    const testApp = await startTestApp({
      PROMO_VIDEO_URL: '',
      COMMUNITY_CHAT_URL: 'https://chat.example/invite',
      RECAPTCHA_SITE_KEY: 'site-key-123',
    });
    close = testApp.close;
    const response = await testApp.app.inject('/api/public-config');
    expect(response.statusCode).toBe(200);
    const body = PublicConfig.parse(response.json());
    expect(body).toEqual({
      promoVideoUrl: null,
      community: {
        streaming: 'https://www.twitch.tv/telerace',
        video: 'https://www.youtube.com/@telerace',
        chat: 'https://chat.example/invite',
      },
      recaptchaSiteKey: 'site-key-123',
      socialProviders: { twitch: false, youtube: false, discord: false },
      supportEmail: null,
    });
    // Public by design: nothing secret.
    expect(response.body).not.toContain(testApp.config.jwtSecret);
  });

  // Issue 41: a setting, and the quick start's placeholder only in the demo.
  it.each([
    [{ SUPPORT_EMAIL: 'help@racing.example' }, 'help@racing.example'],
    [{ SUPPORT_EMAIL: 'help@racing.example', DEMO_ACCOUNTS: 'true' }, 'help@racing.example'],
    [{ DEMO_ACCOUNTS: 'true' }, 'support@telerace.example'],
    [{}, null],
  ])('tells the support address: %o gives %s', async (env, supportEmail) => {
    const testApp = await startTestApp(env);
    close = testApp.close;
    const response = await testApp.app.inject('/api/public-config');
    expect(PublicConfig.parse(response.json()).supportEmail).toBe(supportEmail);
  });
});
