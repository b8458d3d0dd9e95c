import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { switchAnnouncementsOff } from '../../test/announcements.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildAdmin } from '../../test/factories.js';
import {
  type BotMessage,
  startTwitchChatStandIn,
  type TwitchChatStandIn,
} from '../../test/stand-ins/twitch-chat.js';
import { mentionOf } from './twitch-chat.js';

const TOKEN = 'oauth:twitch-chat-test-token';
const ADMIN = { id: null, username: 'test' };
const CHANNEL = 'telerace';

const chatEnv = (url: string, token = TOKEN) => ({
  TWITCH_CHANNEL: CHANNEL,
  TWITCH_BOT_USERNAME: 'telerace_bot',
  TWITCH_BOT_TOKEN: token,
  TWITCH_IRC_URL: url,
});

/** Chat answers are paced 1.5 s apart: wait longer than expect.poll's default second. */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) =>
  expect.poll(read, { timeout, interval: 50 });

/** Every "@name" mentioned in the bot's messages. */
const mentionsIn = (messages: BotMessage[]) =>
  messages.flatMap((message) => (message.text.split(': ')[0] as string).split(', '));

/** The most messages the bot sent in any 30 s window. */
const busiestWindow = (messages: BotMessage[]) =>
  Math.max(
    0,
    ...messages.map((first) => messages.filter((m) => m.at >= first.at && m.at < first.at + 30_000).length),
  );

describe('the Twitch chat bot', () => {
  let standIn: TwitchChatStandIn;
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  const hub = () => testApp.app.integrations;
  const answersSince = (index: number) => standIn.botMessages().slice(index);

  beforeAll(async () => {
    standIn = await startTwitchChatStandIn({ token: TOKEN });
    testApp = await startTestApp(chatEnv(standIn.url));
    await switchAnnouncementsOff(testApp.app);
    await vi.waitFor(() => expect(hub().status('twitch').state).toBe('connected'), {
      timeout: 10_000,
      interval: 50,
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await standIn?.close();
  });
  afterEach(async () => {
    if (await testApp.app.raffles.isOpen()) await testApp.app.raffles.abort(ADMIN);
  });

  it('joins the channel and says so to the admin', () => {
    expect(hub().status('twitch')).toMatchObject({
      state: 'connected',
      target: '#telerace',
      canSendTestMessage: true,
    });
    expect(standIn.joinedSessions()).toBe(1);
  });

  it('answers a join command once per viewer and raffle; other lines get nothing', async () => {
    const start = standIn.botMessages().length;
    standIn.say({ login: 'ana', id: '5001', displayName: 'Ana' }, '!join');
    await poll(() => answersSince(start).length).toBe(1);
    expect(answersSince(start)[0]).toMatchObject({
      channel: '#telerace',
      text: '@Ana: no raffle is open right now.',
    });

    await testApp.app.raffles.start(ADMIN, 2);
    standIn.say({ login: 'ana', id: '5001', displayName: 'Ana' }, 'hello there');
    standIn.say({ login: 'ana', id: '5001', displayName: 'Ana' }, '!JOIN please');
    standIn.say({ login: 'ana', id: '5001', displayName: 'Ana' }, '!join');
    await poll(() => answersSince(start).length).toBe(2);
    expect(answersSince(start)[1]?.text).toBe("@Ana: you're in the raffle. Good luck!");
    const entries = (await testApp.app.raffles.publicRaffle('current', { fresh: true })).snapshot.entries;
    expect(entries).toEqual([
      expect.objectContaining({ platform: 'twitch', platformUserId: '5001', displayName: 'Ana' }),
    ]);
    // The second !join was "already in", which is not answered again in this raffle.
    await poll(() =>
      hub()
        .adminView()
        .then((view) => view.recentEvents[0]?.outcome),
    ).toBe('already_in');
    expect(answersSince(start)).toHaveLength(2);
  });

  it('batches a burst of joins under Twitch’s limit, mentioning every viewer once', async () => {
    await testApp.app.raffles.start(ADMIN, 2);
    const start = standIn.botMessages().length;
    const viewers = Array.from({ length: 60 }, (_, i) => ({
      login: `viewer_${i}`,
      id: String(7000 + i),
      displayName: i === 7 ? '시청자' : `Viewer_${i}`,
    }));
    for (const viewer of viewers) standIn.say(viewer, '!join');
    await poll(() => mentionsIn(answersSince(start)).length, 20_000).toBe(60);
    const sent = answersSince(start);
    expect(new Set(mentionsIn(sent)).size).toBe(60);
    expect(mentionsIn(sent)).toContain('@viewer_7');
    expect(sent.length).toBeLessThanOrEqual(20);
    expect(busiestWindow(standIn.botMessages())).toBeLessThanOrEqual(20);
    for (const message of sent) {
      expect(message.text.length).toBeLessThanOrEqual(500);
      expect(message.text).toMatch(/: you're in the raffle\. Good luck!$/);
    }
    expect(
      (await testApp.app.raffles.publicRaffle('current', { fresh: true })).snapshot.entries,
    ).toHaveLength(60);
  });

  it('sends the admin’s test message in the channel', async () => {
    const admin = await buildAdmin(testApp.app.database.db);
    const start = standIn.botMessages().length;
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/api/admin/integrations/twitch/test-message',
      headers: await authHeader(testApp.app, admin),
      payload: { message: 'Hello from Telerace' },
    });
    expect(response.statusCode).toBe(204);
    await poll(() => answersSince(start).map((message) => message.text)).toEqual(['Hello from Telerace']);
  });

  it('reconnects after Twitch drops the connection, reporting the error meanwhile', async () => {
    const connections = standIn.connectionCount();
    standIn.dropConnections();
    await poll(() => hub().status('twitch').state).toBe('error');
    expect(hub().status('twitch').lastError).toMatch(/Twitch chat connection lost/);
    await poll(() => hub().status('twitch').state).toBe('connected');
    expect(standIn.connectionCount()).toBe(connections + 1);
    expect(standIn.joinedSessions()).toBe(1);

    await testApp.app.raffles.start(ADMIN, 2);
    const start = standIn.botMessages().length;
    standIn.say({ login: 'bo', id: '5002', displayName: 'Bo' }, '!join');
    await poll(() => answersSince(start).map((message) => message.text)).toEqual([
      "@Bo: you're in the raffle. Good luck!",
    ]);
  });

  it('reconnects at once when Twitch asks to, without reporting an error', async () => {
    const connections = standIn.connectionCount();
    const errorsBefore = hub().status('twitch').lastErrorAt;
    standIn.requestReconnect();
    await poll(() => standIn.connectionCount()).toBe(connections + 1);
    await poll(() => hub().status('twitch').state).toBe('connected');
    expect(standIn.joinedSessions()).toBe(1);
    expect(hub().status('twitch').lastErrorAt).toBe(errorsBefore);
  });
});

describe('the Twitch chat bot with a refused token', () => {
  it('reports the error, keeps retrying, and never logs the token', async () => {
    const standIn = await startTwitchChatStandIn({ token: TOKEN });
    const wrongToken = 'oauth:a-token-twitch-refuses';
    const testApp = await startTestApp(chatEnv(standIn.url, wrongToken));
    try {
      await poll(() => testApp.app.integrations.status('twitch').lastError).toMatch(
        /Login authentication failed/,
      );
      expect(testApp.app.integrations.status('twitch').state).toBe('error');
      // It tries again after its backoff.
      await poll(() => standIn.connectionCount()).toBeGreaterThan(1);
      expect(testApp.logText()).not.toContain(wrongToken);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });

  it('hangs up when the server stops, and does not come back', async () => {
    const standIn = await startTwitchChatStandIn({ token: TOKEN });
    const testApp = await startTestApp(chatEnv(standIn.url));
    try {
      await poll(() => testApp.app.integrations.status('twitch').state).toBe('connected');
      await testApp.close();
      await poll(() => standIn.joinedSessions()).toBe(0);
      // Longer than the first retry's wait: a leftover reconnection would have knocked by now.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(standIn.connectionCount()).toBe(1);
    } finally {
      await standIn.close();
    }
  });
});

describe('mentions', () => {
  it('use the display name when it is the login in other capitals, else the login', () => {
    expect(mentionOf('ana_b', 'Ana_B')).toBe('@Ana_B');
    expect(mentionOf('kimchi99', '김치')).toBe('@kimchi99');
  });
});
