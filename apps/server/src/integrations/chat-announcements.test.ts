/**
 * What the bots announce (issue 23, docs/integrations.md "Announcements"), in every chat at once,
 * against the stand-ins of Twitch chat, the YouTube Data API and Discord's gateway and REST API:
 * a raffle opened, its winners, a finished race's podium, each switched off by an admin through
 * PATCH /api/admin/settings. The app runs on a ManualClock: `until` moves it half a second at a
 * time, so Twitch's pacing (1.5 s between lines) and YouTube's polling (1 s) go on.
 */
import { desc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditLog } from '../db/schema.js';
import { ManualClock } from '../test/clock.js';
import { authHeader, buildAdmin, buildUser } from '../test/factories.js';
import {
  connectCar,
  createCar,
  eventsUrl,
  type ListeningTestApp,
  openSocket,
  originOf,
  startListeningTestApp,
  type TestSocket,
  takeCar,
} from '../test/sockets.js';
import { DiscordStandIn } from '../test/stand-ins/discord.js';
import { startTwitchChatStandIn, type TwitchChatStandIn } from '../test/stand-ins/twitch-chat.js';
import { YoutubeStandIn } from '../test/stand-ins/youtube.js';

const TOKEN = 'oauth:announcements-test-token';
const SETTINGS = {
  raffle_opened: 'chat_announce_raffle_opened',
  raffle_winners: 'chat_announce_raffle_winners',
  race_podium: 'chat_announce_race_podium',
} as const;
type Kind = keyof typeof SETTINGS;
const ALL_ON = {
  chat_announce_raffle_opened: true,
  chat_announce_raffle_winners: true,
  chat_announce_race_podium: true,
};

type Chat = 'twitch' | 'youtube' | 'discord';
const CHATS: Chat[] = ['twitch', 'youtube', 'discord'];

interface Harness {
  testApp: ListeningTestApp;
  clock: ManualClock;
  twitch: TwitchChatStandIn;
  youtube: YoutubeStandIn;
  discord: DiscordStandIn;
  /** A fresh admin token each time: the clock moves on through the file. */
  adminHeaders(): Promise<{ authorization: string }>;
  sockets: TestSocket[];
}

async function boot(env: Record<string, string> = {}): Promise<Harness> {
  const twitch = await startTwitchChatStandIn({ token: TOKEN });
  const youtube = await YoutubeStandIn.start();
  const discord = await DiscordStandIn.start();
  const clock = new ManualClock();
  const testApp = await startListeningTestApp(
    {
      TWITCH_CHANNEL: 'telerace',
      TWITCH_BOT_USERNAME: 'telerace_bot',
      TWITCH_BOT_TOKEN: TOKEN,
      TWITCH_IRC_URL: twitch.url,
      YOUTUBE_API_URL: youtube.url,
      YOUTUBE_OAUTH_TOKEN: youtube.oauthToken,
      YOUTUBE_LIVE_CHAT_ID: youtube.liveChatId ?? 'not-live',
      ...discord.env({ channel: true }),
      PUBLIC_URL: 'https://race.example.test/',
      PRIZE_CLAIM_MINUTES: '45',
      ...env,
    },
    { clock },
  );
  const admin = await buildAdmin(testApp.app.database.db);
  const h: Harness = {
    testApp,
    clock,
    twitch,
    youtube,
    discord,
    adminHeaders: () => authHeader(testApp.app, admin),
    sockets: [],
  };
  await until(h, () => CHATS.every((id) => testApp.app.integrations.status(id).state === 'connected'));
  return h;
}

async function shutDown(h: Harness | undefined): Promise<void> {
  if (!h) return;
  for (const socket of h.sockets) socket.ws.terminate();
  await h.testApp.close();
  await Promise.all([h.twitch.close(), h.youtube.close(), h.discord.close()]);
}

/** Moves the clock half a second at a time (letting sockets and HTTP answer) until `done` holds. */
async function until(h: Harness, done: () => boolean | Promise<boolean>): Promise<void> {
  await vi.waitFor(
    async () => {
      if (await done()) return;
      h.clock.advance(500);
      throw new Error('the chats did not get there in time');
    },
    { timeout: 10_000, interval: 25 },
  );
}

/** Everything each bot wrote in its chat so far. */
const said = (h: Harness): Record<Chat, string[]> => ({
  twitch: h.twitch.botMessages().map((message) => message.text),
  youtube: h.youtube.sent(),
  discord: h.discord.messages.map((message) => message.content),
});

/** What each bot wrote since `before` (a `said` taken earlier). */
const saidSince = (h: Harness, before: Record<Chat, string[]>): Record<Chat, string[]> => {
  const now = said(h);
  return {
    twitch: now.twitch.slice(before.twitch.length),
    youtube: now.youtube.slice(before.youtube.length),
    discord: now.discord.slice(before.discord.length),
  };
};

/** Waits until every chat has a line since `before` matching `pattern`; returns those lines. */
async function inEveryChat(
  h: Harness,
  before: Record<Chat, string[]>,
  pattern: RegExp,
): Promise<Record<Chat, string>> {
  const found = () => {
    const since = saidSince(h, before);
    return Object.fromEntries(CHATS.map((chat) => [chat, since[chat].find((text) => pattern.test(text))]));
  };
  await until(h, () => CHATS.every((chat) => found()[chat] !== undefined));
  return found() as Record<Chat, string>;
}

const post = async (h: Harness, url: string, payload?: object) =>
  h.testApp.app.inject({
    method: 'POST',
    url,
    headers: await h.adminHeaders(),
    ...(payload ? { payload } : {}),
  });

async function openRaffle(h: Harness, racers: number): Promise<void> {
  const response = await post(h, '/api/admin/race/start-raffle', { racers });
  expect(response.statusCode, response.body).toBe(200);
}

/** Enters each name by hand (as from Twitch), draws, and answers the winners' names in rank order. */
async function drawAmong(h: Harness, names: string[]): Promise<string[]> {
  for (const [index, displayName] of names.entries()) {
    const entry = await post(h, '/api/admin/race/raffle-entries', {
      platform: 'twitch',
      platformUserId: `${Date.now()}${index}`,
      displayName,
    });
    expect(entry.statusCode, entry.body).toBe(200);
  }
  const drawn = await post(h, '/api/admin/race/draw-winners');
  expect(drawn.statusCode, drawn.body).toBe(200);
  const prizes = (drawn.json() as { prizes: { rank: number; displayName: string }[] }).prizes;
  return [...prizes].sort((a, b) => a.rank - b.rank).map((prize) => prize.displayName);
}

async function patchSettings(h: Harness, payload: object, headers?: Record<string, string>) {
  return h.testApp.app.inject({
    method: 'PATCH',
    url: '/api/admin/settings',
    headers: headers ?? (await h.adminHeaders()),
    payload,
  });
}

const getSettings = async (h: Harness) =>
  (await h.testApp.app.inject({ url: '/api/admin/settings', headers: await h.adminHeaders() })).json();

let raceCount = 0;

/**
 * A race of four drivers, ended by the admin: the first 2 laps (best 4.00 s), the second 1 lap in
 * 4.50 s, the third 1 lap in 5.00 s, the fourth none. Answers the drivers' usernames in that order.
 */
async function runRace(h: Harness): Promise<string[]> {
  const { app, host } = h.testApp;
  raceCount += 1;
  const drivers: { username: string; car: TestSocket; events: TestSocket }[] = [];
  for (const name of ['ana', 'bo', 'cy', 'dee']) {
    const driving = await createCar(app, `${name} car ${raceCount}`);
    const car = await connectCar(host, driving.carId, driving.secret);
    const user = await buildUser(app.database.db, { username: `${name}_racer${raceCount}` });
    const taken = await takeCar(app, driving, user);
    const events = await openSocket(eventsUrl(host, taken.accessToken), originOf(app));
    h.sockets.push(car, events);
    events.send({ type: 'join_lobby', carId: driving.carId });
    await events.next((m) => m.type === 'race_state_update' && hasParticipant(m, user.id));
    drivers.push({ username: user.username, car, events });
  }
  const [ana, bo, cy] = drivers as [(typeof drivers)[0], (typeof drivers)[0], (typeof drivers)[0]];
  const started = await post(h, '/api/admin/race/start');
  expect(started.statusCode, started.body).toBe(200);
  for (let second = 0; second < 5; second += 1) {
    h.clock.advance(1_000);
    await app.race.settled();
  }
  await ana.events.next((m) => m.type === 'race_state_update' && statusOf(m) === 'active');

  const t0 = h.clock.now().getTime();
  for (const driver of drivers) driver.car.send({ type: 'pass', at: t0 });
  h.clock.advance(5_000);
  ana.car.send({ type: 'pass', at: t0 + 4_000 });
  bo.car.send({ type: 'pass', at: t0 + 4_500 });
  cy.car.send({ type: 'pass', at: t0 + 5_000 });
  await ana.events.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m) === '1,1,1,0');
  h.clock.advance(5_000);
  ana.car.send({ type: 'pass', at: t0 + 9_000 });
  await ana.events.next((m) => m.type === 'live_leaderboard_update' && lapsOf(m) === '2,1,1,0');

  const ended = await post(h, '/api/admin/race/end');
  expect(ended.statusCode, ended.body).toBe(200);
  return drivers.map((driver) => driver.username);
}

type Json = Record<string, unknown>;
const hasParticipant = (m: Json, userId: number) =>
  ((m.payload as { participants: { userId: number }[] }).participants ?? []).some((p) => p.userId === userId);
const statusOf = (m: Json) => (m.payload as { race_status: string }).race_status;
const lapsOf = (m: Json) => (m.data as { laps: number }[]).map((row) => row.laps).join(',');

const CLAIM = 'https://race.example.test/claim';

describe('the bots’ announcements (English)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await boot();
  });
  afterAll(() => shutDown(h));
  afterEach(async () => {
    if (await h.testApp.app.raffles.isOpen()) await post(h, '/api/admin/race/abort-raffle');
    expect((await patchSettings(h, ALL_ON)).statusCode).toBe(200);
  });

  it('all three are on by default', async () => {
    expect(await getSettings(h)).toMatchObject(ALL_ON);
  });

  it('opening a raffle posts the join command in each chat', async () => {
    const before = said(h);
    await openRaffle(h, 2);
    const lines = await inEveryChat(h, before, /raffle is open/);
    for (const chat of CHATS) {
      expect(lines[chat]).toBe(
        'A raffle is open! Type !join to enter: 2 winners will drive in the next race.',
      );
    }
  });

  it('a draw posts the winners with the claim link and the minutes they have', async () => {
    await openRaffle(h, 2);
    const before = said(h);
    const winners = await drawAmong(h, ['Ana', 'Bo', 'Cy']);
    expect(winners).toHaveLength(2);
    const lines = await inEveryChat(h, before, /^Raffle winners/);
    for (const chat of CHATS) {
      expect(lines[chat]).toBe(
        `Raffle winners: ${winners.join(', ')}! Claim your prize at ${CLAIM} within 45 minutes by signing in with the account that won.`,
      );
    }
  });

  it('many winners are cut to each chat’s length, the claim link kept', async () => {
    await openRaffle(h, 20);
    const before = said(h);
    const names = Array.from(
      { length: 20 },
      (_, i) => `A_rather_long_display_name_${String(i).padStart(2, '0')}`,
    );
    const winners = await drawAmong(h, names);
    const lines = await inEveryChat(h, before, /^Raffle winners/);
    expect(lines.twitch.length).toBeLessThanOrEqual(500);
    expect(lines.youtube.length).toBeLessThanOrEqual(200);
    for (const chat of ['twitch', 'youtube'] as const) {
      const shown = winners.filter((name) => lines[chat].includes(name));
      expect(shown.length).toBeGreaterThan(0);
      // The first drawn are named, whole; the rest are counted.
      expect(shown).toEqual(winners.slice(0, shown.length));
      expect(lines[chat]).toContain(`${shown.at(-1)} and ${20 - shown.length} more!`);
      expect(lines[chat]).toContain(`${CLAIM} within 45 minutes`);
    }
    // Discord's 2,000 characters hold them all (names escaped for its markdown).
    for (const name of winners) expect(lines.discord).toContain(name.replaceAll('_', '\\_'));
    expect(lines.discord).toContain(CLAIM);
  });

  it('a finished race posts its podium: the top three with their laps and best lap', async () => {
    const before = said(h);
    const [first, second, third, fourth] = await runRace(h);
    const lines = await inEveryChat(h, before, /Race over/);
    const podium = `Race over! 1. ${first}: 2 laps, best 4.00 s · 2. ${second}: 1 lap, best 4.50 s · 3. ${third}: 1 lap, best 5.00 s`;
    expect(lines.twitch).toBe(podium);
    expect(lines.youtube).toBe(podium);
    expect(lines.discord).toBe(podium.replaceAll('_', '\\_'));
    expect(lines.twitch).not.toContain(fourth);
  });

  /** What makes each announcement happen, and a later one (on) that shows the first was not said. */
  const scenarios: Record<
    Kind,
    { pattern: RegExp; act(): Promise<void>; marker: RegExp; followedBy(): Promise<void> }
  > = {
    raffle_opened: {
      pattern: /raffle is open/,
      act: () => openRaffle(h, 1),
      marker: /Raffle winner:/,
      followedBy: async () => void (await drawAmong(h, ['Solo'])),
    },
    raffle_winners: {
      pattern: /winner:/,
      act: async () => {
        await openRaffle(h, 1);
        await drawAmong(h, ['Lucky']);
      },
      marker: /Race over/,
      followedBy: async () => void (await runRace(h)),
    },
    race_podium: {
      pattern: /Race over/,
      act: async () => void (await runRace(h)),
      marker: /raffle is open/,
      followedBy: () => openRaffle(h, 1),
    },
  };

  it.each(Object.keys(SETTINGS) as Kind[])(
    'an admin switches %s off: exactly that one stops, audited',
    async (kind) => {
      const scenario = scenarios[kind];
      const off = await patchSettings(h, { [SETTINGS[kind]]: false });
      expect(off.statusCode, off.body).toBe(200);
      expect(off.json()).toMatchObject({ ...ALL_ON, [SETTINGS[kind]]: false });

      const before = said(h);
      await scenario.act();
      await h.testApp.app.chatAnnouncer.settled();
      await scenario.followedBy();
      await inEveryChat(h, before, scenario.marker);
      const since = saidSince(h, before);
      for (const chat of CHATS) expect(since[chat].filter((text) => scenario.pattern.test(text))).toEqual([]);

      // The newest record: a query without ORDER BY may give rows in any order (PostgreSQL did).
      const [audit] = await h.testApp.app.database.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, 'settings.update'))
        .orderBy(desc(auditLog.id))
        .limit(1);
      expect(audit).toMatchObject({
        before: { [SETTINGS[kind]]: true },
        after: { [SETTINGS[kind]]: false },
      });
    },
  );

  it('a member cannot change them (403), nor a visitor (401)', async () => {
    const member = await authHeader(h.testApp.app, await buildUser(h.testApp.app.database.db));
    expect((await patchSettings(h, { chat_announce_raffle_opened: false }, member)).statusCode).toBe(403);
    expect((await patchSettings(h, { chat_announce_raffle_opened: false }, {})).statusCode).toBe(401);
    expect((await patchSettings(h, { chat_announce_raffle_opened: 'no' })).statusCode).toBe(400);
    expect(await getSettings(h)).toMatchObject(ALL_ON);
  });
});

describe('the bots’ announcements (French)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await boot({ CHAT_LANGUAGE: 'fr', PRIZE_CLAIM_MINUTES: '1' });
  });
  afterAll(() => shutDown(h));

  it('open, winner and podium speak CHAT_LANGUAGE', async () => {
    let before = said(h);
    await openRaffle(h, 1);
    const opened = await inEveryChat(h, before, /tirage est ouvert/);
    for (const chat of CHATS) {
      expect(opened[chat]).toBe(
        'Un tirage est ouvert ! Tape !join pour participer : 1 gagnant pilotera dans la prochaine course.',
      );
    }

    before = said(h);
    const [winner] = await drawAmong(h, ['Zoé']);
    const drawn = await inEveryChat(h, before, /Gagnant/);
    for (const chat of CHATS) {
      expect(drawn[chat]).toBe(
        `Gagnant du tirage : ${winner} ! Réclame ton prix sur ${CLAIM} d'ici 1 minute en te connectant avec le compte gagnant.`,
      );
    }

    before = said(h);
    const [first, second, third] = await runRace(h);
    const podium = await inEveryChat(h, before, /Course terminée/);
    for (const chat of ['twitch', 'youtube'] as const) {
      expect(podium[chat]).toBe(
        `Course terminée ! 1. ${first} : 2 tours, meilleur tour 4,00 s · 2. ${second} : 1 tour, meilleur tour 4,50 s · 3. ${third} : 1 tour, meilleur tour 5,00 s`,
      );
    }
  });
});

describe('a chat the bot cannot write to', () => {
  it('is skipped, with nothing logged: YouTube with an API key only, Discord without a channel', async () => {
    const youtube = await YoutubeStandIn.start();
    const discord = await DiscordStandIn.start();
    const clock = new ManualClock();
    const testApp = await startListeningTestApp(
      {
        YOUTUBE_API_URL: youtube.url,
        YOUTUBE_API_KEY: youtube.apiKey,
        YOUTUBE_LIVE_CHAT_ID: youtube.liveChatId ?? 'not-live',
        ...discord.env(),
      },
      { clock },
    );
    const h = { testApp, clock } as Harness;
    try {
      await until(h, () =>
        (['youtube', 'discord'] as const).every(
          (id) => testApp.app.integrations.status(id).state === 'connected',
        ),
      );
      const admin = await buildAdmin(testApp.app.database.db);
      h.adminHeaders = () => authHeader(testApp.app, admin);
      const logged = testApp.logLines().length;
      await openRaffle(h, 1);
      await drawAmong(h, ['Quiet']);
      await testApp.app.chatAnnouncer.settled();
      const reads = youtube.requestsTo('liveChatMessages').length;
      await until(h, () => youtube.requestsTo('liveChatMessages').length >= reads + 3);

      expect(youtube.requestsTo('liveChatMessages', 'POST')).toEqual([]);
      expect(discord.messages).toEqual([]);
      const lines = testApp.logLines().slice(logged);
      expect(lines.filter((line) => /announc/i.test(JSON.stringify(line)))).toEqual([]);
      expect(lines.filter((line) => Number(line.level) >= 40)).toEqual([]);
    } finally {
      await testApp.close();
      await Promise.all([youtube.close(), discord.close()]);
    }
  });
});
