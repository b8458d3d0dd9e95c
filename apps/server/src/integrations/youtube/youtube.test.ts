/**
 * The YouTube live chat against a local stand-in of the Data API over real HTTP
 * (test/stand-ins/youtube.ts). The app runs on a ManualClock: each test moves time to the chat
 * loop's next step (`step`), so "polls every 3 s" and "backs off 15 s, then 30 s" are exact.
 */
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { ticketLedger } from '../../db/schema.js';
import { switchAnnouncementsOff } from '../../test/announcements.js';
import { type StartedTestApp, startTestApp } from '../../test/app.js';
import { ManualClock } from '../../test/clock.js';
import { failNextWrites } from '../../test/database-hiccup.js';
import { authHeader, buildAdmin, buildUser } from '../../test/factories.js';
import {
  type StandInAuthor,
  YoutubeStandIn,
  type YoutubeStandInOptions,
} from '../../test/stand-ins/youtube.js';
import type { YoutubeChat } from './youtube-chat.js';

const ADMIN = { id: null, username: 'test' };
let seq = 0;
const viewer = (name: string, extra: Partial<StandInAuthor> = {}): StandInAuthor => ({
  channelId: `UC-${name.toLowerCase()}-${++seq}-${Math.random().toString(36).slice(2, 8)}`,
  displayName: name,
  ...extra,
});

interface Harness {
  standIn: YoutubeStandIn;
  testApp: StartedTestApp;
  clock: ManualClock;
  chat: YoutubeChat;
  /** Moves the clock to the chat loop's next step and waits for it; returns the wait after it. */
  step(): Promise<number>;
  /** Steps until `done` holds (at most `max` steps). */
  stepUntil(done: () => Promise<boolean> | boolean, max?: number): Promise<void>;
  /** The member's tickets breakdown through GET /api/me/tickets. */
  breakdown(user: { id: number }): Promise<Record<string, number>>;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.testApp.close();
    await h.standIn.close();
  }
});

type Credentials = 'token' | 'key';

async function boot(
  options: {
    credentials?: Credentials;
    env?: Record<string, string>;
    standIn?: YoutubeStandInOptions;
    /** Messages already in the chat before the server reads it. */
    before?: (standIn: YoutubeStandIn) => void;
    chatId?: 'configured' | 'discovered';
  } = {},
): Promise<Harness> {
  const standIn = await YoutubeStandIn.start(options.standIn);
  options.before?.(standIn);
  const credentials = options.credentials ?? 'token';
  const clock = new ManualClock();
  const testApp = await startTestApp(
    {
      YOUTUBE_API_URL: standIn.url,
      ...(credentials === 'token'
        ? { YOUTUBE_OAUTH_TOKEN: standIn.oauthToken }
        : { YOUTUBE_API_KEY: standIn.apiKey }),
      ...((options.chatId ?? 'configured') === 'configured'
        ? { YOUTUBE_LIVE_CHAT_ID: standIn.liveChatId ?? 'not-live' }
        : { YOUTUBE_CHANNEL_ID: standIn.channelId }),
      ...options.env,
    },
    { clock },
  );
  await switchAnnouncementsOff(testApp.app);
  const chat = testApp.app.youtubeChat;
  if (!chat) throw new Error('YouTube chat did not start');
  const step = async () => {
    clock.advance(await chat.whenWaiting());
    return chat.whenWaiting();
  };
  const harness: Harness = {
    standIn,
    testApp,
    clock,
    chat,
    step,
    async stepUntil(done, max = 20) {
      for (let i = 0; i < max; i += 1) {
        await chat.whenWaiting();
        if (await done()) return;
        await step();
      }
      throw new Error(`not done after ${max} steps`);
    },
    async breakdown(user) {
      const response = await testApp.app.inject({
        url: '/api/me/tickets',
        headers: await authHeader(testApp.app, user),
      });
      expect(response.statusCode).toBe(200);
      return response.json().breakdown;
    },
  };
  open.push(harness);
  return harness;
}

const youtubeEntries = async (h: Harness) =>
  (await h.testApp.app.integrations.adminView()).openRaffleEntries?.youtube ?? 0;
const status = (h: Harness) => h.testApp.app.integrations.status('youtube');

describe('YouTube live chat', () => {
  it('enters viewers who type the join command across pages, not the history, answering each once in batches', async () => {
    const old = viewer('Oldtimer');
    const h = await boot({
      standIn: { pageSize: 2 },
      before: (s) => s.say(old, '!join', { publishedAt: new Date(Date.now() - 3_600_000) }),
    });
    await h.chat.whenWaiting();
    expect(status(h)).toMatchObject({ state: 'connected', target: `live chat ${h.standIn.liveChatId}` });
    await h.testApp.app.raffles.start(ADMIN, 2);

    const viewers = ['Ana', 'Bo', 'Cy', '@dee', 'Ed'].map((name) => viewer(name));
    const [ana] = viewers as [StandInAuthor];
    for (const v of viewers) h.standIn.say(v, v === ana ? '!JOIN please' : '!join');
    h.standIn.say(ana, '!join');
    h.standIn.say(viewer('Chatty'), 'hello !join');
    await h.stepUntil(async () => (await youtubeEntries(h)) === 5 && h.standIn.sent().length > 0);
    // Seven messages, two a page: all read; then the answers still waiting go out one per read.
    await h.stepUntil(() => h.standIn.sent().join(' ').split('@').length - 1 === 5);

    expect(await youtubeEntries(h)).toBe(5);
    const sent = h.standIn.sent();
    const reads = h.standIn.requestsTo('liveChatMessages').length;
    expect(sent.length).toBeLessThan(reads);
    for (const line of sent) expect(line).toMatch(/^(@\S+)(, @\S+)*: you're in the raffle\. Good luck!$/);
    const mentioned = sent.flatMap((line) => line.split(':')[0]?.split(', ') ?? []);
    expect(mentioned.sort()).toEqual(['@Ana', '@Bo', '@Cy', '@Ed', '@dee']);
    expect(h.standIn.requestsTo('liveChatMessages', 'POST').length).toBe(sent.length);
    expect(h.testApp.logText()).not.toContain(h.standIn.oauthToken);
  });

  it("waits YouTube's polling interval between reads, and never less than a second", async () => {
    const h = await boot({ standIn: { pollingIntervalMillis: 3_000 } });
    expect(await h.chat.whenWaiting()).toBe(3_000);
    const before = h.chat.steps;
    h.clock.advance(2_999);
    expect(h.chat.steps).toBe(before);
    h.clock.advance(1);
    expect(h.chat.steps).toBe(before + 1);
    await h.chat.whenWaiting();

    // 30 s of clock: ten reads.
    const reads = h.standIn.requestsTo('liveChatMessages').length;
    for (let i = 0; i < 10; i += 1) expect(await h.step()).toBe(3_000);
    expect(h.standIn.requestsTo('liveChatMessages').length).toBe(reads + 10);

    h.standIn.pollingIntervalMillis = 200;
    expect(await h.step()).toBe(1_000);
  });

  it('turns Super Chats and Super Stickers in USD and EUR into tickets for the linked member, history included', async () => {
    const cy = viewer('Cy');
    const h = await boot({
      credentials: 'key',
      env: { DONATION_USD_RATES: 'EUR=1.08' },
      before: (s) => s.superChat(cy, 4, 'USD', 'from before'),
    });
    const member = await buildUser(h.testApp.app.database.db, { youtubeId: cy.channelId });
    h.standIn.superChat(cy, 5, 'USD');
    h.standIn.superChat(cy, 10, 'EUR');
    h.standIn.superSticker(cy, 2.5, 'USD');
    h.standIn.superChat(cy, 300, 'JPY');
    await h.stepUntil(async () => (await h.breakdown(member)).donations === 4 + 5 + 10 + 2);
    await h.step();
    expect((await h.breakdown(member)).donations).toBe(21);
    const donations = (await h.testApp.app.integrations.adminView()).recentEvents.filter(
      (e) => e.kind === 'donation',
    );
    expect(donations.map((e) => [e.currency, e.tickets])).toEqual([
      ['JPY', 0],
      ['USD', 2],
      ['EUR', 10],
      ['USD', 5],
      ['USD', 4],
    ]);
    // With a key only, the bot cannot write: no answers, no test message.
    expect(status(h).canSendTestMessage).toBe(false);
    expect(h.standIn.requestsTo('liveChatMessages', 'POST')).toEqual([]);
    expect(h.testApp.logText()).not.toContain(h.standIn.apiKey);
  });

  it('backs off on a quota error (state error with the reason), then recovers and reads what was said meanwhile', async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    await h.testApp.app.raffles.start(ADMIN, 2);
    h.standIn.failNext(2, 'quotaExceeded');
    const patient = viewer('Patient');
    h.standIn.say(patient, '!join');

    expect(await h.step()).toBe(15_000);
    expect(status(h)).toMatchObject({ state: 'error', lastError: expect.stringContaining('quotaExceeded') });
    expect(await h.step()).toBe(30_000);
    expect(status(h).state).toBe('error');
    expect(await youtubeEntries(h)).toBe(0);
    expect(await h.step()).toBe(1_000);
    expect(status(h).state).toBe('connected');
    expect(await youtubeEntries(h)).toBe(1);

    // A success starts the backoff over.
    h.standIn.failNext(1, 'rateLimitExceeded');
    expect(await h.step()).toBe(15_000);
    expect(status(h).lastError).toContain('rateLimitExceeded');
  });

  it('counts a message delivered twice once', async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    await h.testApp.app.raffles.start(ADMIN, 2);
    const twice = viewer('Twice');
    const member = await buildUser(h.testApp.app.database.db, { youtubeId: twice.channelId });
    const donation = h.standIn.superChat(twice, 3, 'USD');
    const join = h.standIn.say(twice, '!join');
    // The first delivery is counted and answered (its entry, ledger row and answer are written
    // after the read: wait for them, not for a number of reads).
    await h.stepUntil(
      async () => (await youtubeEntries(h)) === 1 && (await h.breakdown(member)).donations === 3,
    );
    await h.stepUntil(() => h.standIn.sent().length === 1);
    h.standIn.redeliver(donation);
    h.standIn.redeliver(join);
    const reads = h.standIn.requestsTo('liveChatMessages').length;
    // The redelivered page is read, and one more after it: a late double would show by then.
    await h.stepUntil(() => h.standIn.requestsTo('liveChatMessages').length >= reads + 2);
    expect((await h.breakdown(member)).donations).toBe(3);
    expect(await youtubeEntries(h)).toBe(1);
    expect(h.standIn.sent()).toEqual(["@Twice: you're in the raffle. Good luck!"]);
  });

  it('reads a chat event again until it is recorded: a Super Chat and a membership count once, in order, after a hiccup', async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    const db = h.testApp.app.database.db;
    const [cy, dee] = [viewer('Cy'), viewer('Dee')];
    const [cyUser, deeUser] = [
      await buildUser(db, { youtubeId: cy.channelId }),
      await buildUser(db, { youtubeId: dee.channelId }),
    ];
    // The ledger rows themselves: the tickets count follows the clock, which this test moves slowly.
    const cyDonations = async () =>
      (
        await db
          .select({ amount: ticketLedger.amount })
          .from(ticketLedger)
          .where(eq(ticketLedger.platformUserId, cy.channelId))
      ).map((row) => row.amount);
    const hiccups = [await failNextWrites(db, 'ticket_ledger'), await failNextWrites(db, 'subscriptions')];
    try {
      const donation = h.standIn.superChat(cy, 6, 'USD');
      h.standIn.sponsor(dee);

      // The Super Chat fails: nothing after it is handled, and the admin sees why.
      await h.step();
      expect(status(h)).toMatchObject({ state: 'error', lastError: expect.stringContaining('not recorded') });
      expect(await Promise.all(hiccups.map((hiccup) => hiccup.refused()))).toEqual([1, 0]);
      expect(await cyDonations()).toEqual([]);
      expect((await h.breakdown(deeUser)).loyalty).toBe(0);
      // Read again: the Super Chat is in; the membership after it fails in turn.
      await h.step();
      expect(await cyDonations()).toEqual([6]);
      expect((await h.breakdown(deeUser)).loyalty).toBe(0);
      expect(await hiccups[1]?.refused()).toBe(1);
      await h.step();
      expect((await h.breakdown(deeUser)).loyalty).toBe(5);
      expect(status(h).state).toBe('connected');

      // The same Super Chat delivered again changes nothing.
      h.standIn.redeliver(donation);
      const reads = h.standIn.requestsTo('liveChatMessages').length;
      await h.stepUntil(() => h.standIn.requestsTo('liveChatMessages').length >= reads + 2);
    } finally {
      for (const hiccup of hiccups) await hiccup.remove();
    }
    expect(await cyDonations()).toEqual([6]);
    await h.stepUntil(async () => (await h.breakdown(cyUser)).donations === 6);
    const events = (await h.testApp.app.integrations.adminView()).recentEvents.filter(
      (e) => e.kind === 'donation' || e.kind === 'subscription',
    );
    expect(events.map((e) => [e.kind, e.displayName])).toEqual([
      ['subscription', 'Dee'],
      ['donation', 'Cy'],
    ]);
  });

  it('gives loyalty to new members and milestones, and takes it back when the member badge is gone', async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    const [ana, bo] = [viewer('Ana'), viewer('Bo')];
    const db = h.testApp.app.database.db;
    const [anaUser, boUser] = [
      await buildUser(db, { youtubeId: ana.channelId }),
      await buildUser(db, { youtubeId: bo.channelId }),
    ];
    h.standIn.sponsor(ana);
    h.standIn.milestone(bo, 6);
    await h.step();
    expect((await h.breakdown(anaUser)).loyalty).toBe(5);
    expect((await h.breakdown(boUser)).loyalty).toBe(45);

    // Still a member: the milestone's tier stays. No longer a member: the loyalty goes.
    h.standIn.say({ ...bo, isChatSponsor: true }, 'still here');
    h.standIn.say({ ...ana, isChatSponsor: false }, 'bye');
    await h.step();
    expect((await h.breakdown(boUser)).loyalty).toBe(45);
    expect((await h.breakdown(anaUser)).loyalty).toBe(0);
  });

  it("finds the active broadcast's chat with the owner's token, waits while not live, follows the next broadcast", async () => {
    const h = await boot({ chatId: 'discovered', standIn: { live: false } });
    expect(await h.chat.whenWaiting()).toBe(60_000);
    expect(status(h)).toMatchObject({ state: 'error', lastError: 'no active broadcast' });
    expect(h.standIn.requestsTo('liveBroadcasts')[0]?.query).toMatchObject({ broadcastStatus: 'active' });

    const first = h.standIn.goLive();
    expect(await h.step()).toBe(0);
    await h.step();
    expect(status(h)).toMatchObject({ state: 'connected', target: `live chat ${first}` });

    h.standIn.endBroadcast();
    const second = h.standIn.goLive();
    expect(await h.step()).toBe(1_000);
    expect(status(h)).toMatchObject({ state: 'error', lastError: expect.stringContaining('liveChatEnded') });
    await h.step();
    await h.step();
    expect(status(h)).toMatchObject({ state: 'connected', target: `live chat ${second}` });
    expect(h.standIn.requestsTo('search')).toEqual([]);
  });

  it("finds the chat with an API key through the channel's live video", async () => {
    const h = await boot({ credentials: 'key', chatId: 'discovered' });
    expect(await h.chat.whenWaiting()).toBe(0);
    await h.step();
    expect(status(h)).toMatchObject({ state: 'connected', target: `live chat ${h.standIn.liveChatId}` });
    expect(h.standIn.requestsTo('search')[0]?.query).toMatchObject({
      channelId: h.standIn.channelId,
      eventType: 'live',
      type: 'video',
    });
    expect(h.standIn.requestsTo('videos')).toHaveLength(1);
    expect(h.standIn.requestsTo('liveBroadcasts')).toEqual([]);

    // The broadcast ends and nothing is live: a search costs 100 units, so look every 5 minutes.
    h.standIn.endBroadcast();
    expect(await h.step()).toBe(1_000);
    expect(await h.step()).toBe(300_000);
    expect(status(h).lastError).toBe('no active broadcast');
  });

  it('reports refused credentials without writing them anywhere, and backs off', async () => {
    const h = await boot({ credentials: 'key', env: { YOUTUBE_API_KEY: 'a-wrong-key-0123' } });
    expect(await h.chat.whenWaiting()).toBe(15_000);
    expect(status(h)).toMatchObject({ state: 'error', lastError: expect.stringContaining('keyInvalid') });
    expect(h.testApp.logText()).not.toContain('a-wrong-key-0123');
  });

  it("sends the admin's test message in the chat", async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    const admin = await buildAdmin(h.testApp.app.database.db);
    const response = await h.testApp.app.inject({
      method: 'POST',
      url: '/api/admin/integrations/youtube/test-message',
      headers: await authHeader(h.testApp.app, admin),
      payload: {},
    });
    expect(response.statusCode).toBe(204);
    expect(h.standIn.sent()).toEqual(['Telerace test message: the bot is connected.']);
  });

  it('stops at once with a chat read in flight', async () => {
    const h = await boot();
    await h.chat.whenWaiting();
    h.standIn.hold();
    const reads = h.standIn.requestsTo('liveChatMessages').length;
    h.clock.advance(await h.chat.whenWaiting());
    await expect
      .poll(() => h.standIn.requestsTo('liveChatMessages').length, { timeout: 2_000, interval: 10 })
      .toBeGreaterThan(reads);
    expect(h.standIn.requestsTo('liveChatMessages').length).toBe(reads + 1);
    const started = Date.now();
    open.splice(open.indexOf(h), 1);
    await h.testApp.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    await h.standIn.close();
  });
});

describe('YouTube chat not configured', () => {
  it('does not start', async () => {
    const testApp = await startTestApp();
    try {
      expect(testApp.app.youtubeChat).toBeNull();
      expect(testApp.app.integrations.status('youtube').state).toBe('not_configured');
    } finally {
      await testApp.close();
    }
  });
});
