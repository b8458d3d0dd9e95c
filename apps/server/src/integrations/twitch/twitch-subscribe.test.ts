import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../scripts/twitch-subscribe.js';
import { startTestApp } from '../../test/app.js';
import { startTwitchHelixStandIn, type TwitchHelixStandIn } from '../../test/stand-ins/twitch-helix.js';

const SECRET = 'an eventsub secret for tests';
const APP = { clientId: 'telerace-app', clientSecret: 'telerace-app-secret' };

describe('npm run twitch:subscribe', () => {
  let helix: TwitchHelixStandIn;
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    helix = await startTwitchHelixStandIn({
      ...APP,
      channels: { telerace: '12345', quiet_channel: '777' },
      unauthorizedTypes: ['channel.cheer'],
    });
    testApp = await startTestApp({ TWITCH_EVENTSUB_SECRET: SECRET });
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = testApp.app.server.address() as AddressInfo;
    env = {
      TWITCH_CLIENT_ID: APP.clientId,
      TWITCH_CLIENT_SECRET: APP.clientSecret,
      TWITCH_TOKEN_URL: helix.tokenUrl,
      TWITCH_API_URL: helix.apiUrl,
      TWITCH_CHANNEL: 'telerace',
      TWITCH_EVENTSUB_SECRET: SECRET,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
  });
  afterAll(async () => {
    await testApp?.close();
    await helix?.close();
  });

  const run = async (overrides: Record<string, string | undefined> = {}, args: string[] = []) => {
    const lines: string[] = [];
    const code = await main(
      { ...env, ...overrides },
      args,
      (line) => lines.push(line),
      (line) => lines.push(line),
    );
    return { code, lines };
  };

  it('creates the subscriptions for the channel, which Twitch verifies against the server', async () => {
    const { code, lines } = await run();
    // Twitch refuses bits without the broadcaster's authorization: said, the rest still made.
    expect(code).toBe(1);
    expect(lines).toContain('Channel telerace: broadcaster id 12345');
    expect(lines.find((line) => line.startsWith('channel.cheer:'))).toMatch(/failed, HTTP 403.*bits:read/);
    const made = ['channel.subscribe', 'channel.subscription.message', 'channel.subscription.end'];
    for (const type of made) {
      expect(lines.find((line) => line.startsWith(`${type}:`))).toMatch(
        /created, webhook_callback_verification_pending/,
      );
    }
    await expect
      .poll(() => helix.subscriptions().map((s) => [s.type, s.status]), { timeout: 5_000, interval: 50 })
      .toEqual(made.map((type) => [type, 'enabled']));
    expect(helix.subscriptions()[0]).toMatchObject({
      condition: { broadcaster_user_id: '12345' },
      callback: `${env.PUBLIC_URL}/api/webhooks/twitch`,
      secret: SECRET,
    });
  });

  it('keeps what exists when run again', async () => {
    const { lines } = await run();
    expect(lines.find((line) => line.startsWith('channel.subscribe:'))).toBe(
      'channel.subscribe: exists, already subscribed',
    );
    expect(helix.subscriptions()).toHaveLength(3);
  });

  it('takes the channel from --channel', async () => {
    const { lines } = await run({ TWITCH_CHANNEL: undefined }, ['--channel', 'quiet_channel']);
    expect(lines).toContain('Channel quiet_channel: broadcaster id 777');
  });

  it('names the missing settings, and refuses a callback Twitch cannot call', async () => {
    const missing = await run({ TWITCH_CLIENT_SECRET: undefined, TWITCH_EVENTSUB_SECRET: undefined });
    expect(missing.code).toBe(1);
    expect(missing.lines).toEqual([
      'twitch:subscribe failed: missing settings: TWITCH_CLIENT_SECRET, TWITCH_EVENTSUB_SECRET',
    ]);
    const plain = await run({ PUBLIC_URL: 'http://telerace.example' });
    expect(plain.lines[0]).toMatch(/PUBLIC_URL must be the site's public https:\/\/ address/);
  });

  it('says when Twitch refuses the credentials or does not know the channel', async () => {
    const refused = await run({ TWITCH_CLIENT_SECRET: 'not-the-secret' });
    expect(refused.code).toBe(1);
    expect(refused.lines).toEqual([
      "twitch:subscribe failed: Twitch refused the app's credentials (TWITCH_CLIENT_ID/SECRET): HTTP 403: invalid client secret",
    ]);
    expect(refused.lines.join('\n')).not.toContain('not-the-secret');
    const unknown = await run({ TWITCH_CHANNEL: 'nobody_here' });
    expect(unknown.lines.at(-1)).toBe('twitch:subscribe failed: Twitch has no channel named "nobody_here"');
  });
});
