/**
 * The bots' announcements with two instances (issue 23): both are configured for the same Twitch
 * chat, only the leader (A, up first) is in it, and an announcement made from a follower's action
 * is said once, by the leader. An admin's switch saved on the follower reaches the leader with
 * `settings.changed`.
 */
import type { AdminRaffleResponse } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwoInstances, type TwoInstances } from '../test/instances.js';
import { apiCall } from '../test/process.js';
import { startTwitchChatStandIn, type TwitchChatStandIn } from '../test/stand-ins/twitch-chat.js';

const TOKEN = 'oauth:announcements-instances-token';

describe('announcements with two instances', () => {
  let pair: TwoInstances;
  let twitch: TwitchChatStandIn;

  beforeAll(async () => {
    twitch = await startTwitchChatStandIn({ token: TOKEN });
    pair = await startTwoInstances({
      env: {
        TWITCH_CHANNEL: 'telerace',
        TWITCH_BOT_USERNAME: 'telerace_bot',
        TWITCH_BOT_TOKEN: TOKEN,
        TWITCH_IRC_URL: twitch.url,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await pair?.dispose();
    await twitch?.close();
  });

  const onB = <T>(method: string, path: string, body?: unknown) =>
    apiCall<T>(pair.b.base, method, path, body, pair.adminToken);
  const said = () => twitch.botMessages().map((message) => message.text);
  const poll = <T>(read: () => T) => expect.poll(read, { timeout: 15_000, interval: 100 });

  it('the leader says what a follower’s admin did, once; a switch saved on the follower holds on the leader', async () => {
    await poll(() => twitch.joinedSessions()).toBe(1);

    await onB<AdminRaffleResponse>('POST', '/admin/race/start-raffle', { racers: 1 });
    await onB('POST', '/admin/race/raffle-entries', {
      platform: 'twitch',
      platformUserId: '424242',
      displayName: 'Once',
    });
    await onB('POST', '/admin/race/draw-winners');
    await poll(() => said().filter((text) => text.startsWith('Raffle winner: Once!'))).toHaveLength(1);
    expect(said().filter((text) => text.startsWith('A raffle is open!'))).toHaveLength(1);
    expect(twitch.connectionCount()).toBe(1);

    await onB('PATCH', '/admin/settings', { chat_announce_raffle_opened: false });
    const before = said().length;
    await onB('POST', '/admin/race/start-raffle', { racers: 1 });
    await onB('POST', '/admin/race/raffle-entries', {
      platform: 'twitch',
      platformUserId: '434343',
      displayName: 'Twice',
    });
    await onB('POST', '/admin/race/draw-winners');
    await poll(() => said().slice(before)).toEqual([
      expect.stringMatching(/^Raffle winner: Twice! Claim your prize at http:\/\/127\.0\.0\.1:\d+\/claim /),
    ]);
  });
});
