/**
 * The Discord bot against a local stand-in of Discord's gateway and REST API (test/stand-ins/
 * discord.ts): discord.js connects to it as to discord.com, so what is tested is the real client
 * library speaking the real protocol (JSON gateway v10, REST v10) over real sockets.
 */
import { GatewayIntentBits } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { wholeMonthsBetween } from '../../modules/tickets/tickets.service.js';
import { switchAnnouncementsOff } from '../../test/announcements.js';
import { startTestApp } from '../../test/app.js';
import { failNextWrites } from '../../test/database-hiccup.js';
import { authHeader, buildUser } from '../../test/factories.js';
import { type DiscordMember, DiscordStandIn, isEphemeral } from '../../test/stand-ins/discord.js';
import { ChannelAnswers, MESSAGE_LIMIT } from './channel-answers.js';
import { restOptions } from './discord-bot.js';
import { loyaltyMonths } from './discord-loyalty.js';

const ADMIN = { id: null, username: 'test' };
let seq = 0;
/** A member with a fresh Discord id (digits, like a snowflake). */
const member = (username: string, extra: Partial<DiscordMember> = {}): DiscordMember => ({
  id: `${Date.now()}${String(++seq).padStart(4, '0')}`,
  username,
  ...extra,
});

type App = Awaited<ReturnType<typeof startTestApp>>;

/** Resolves once `check` holds, asked again every 25 ms (vi.waitFor: also in a beforeAll, unlike expect.poll). */
const until = (check: () => boolean | Promise<boolean>, timeout = 10_000) =>
  vi.waitFor(async () => expect(await check()).toBe(true), { timeout, interval: 25 });

const connected = (testApp: App) =>
  until(() => testApp.app.integrations.status('discord').state === 'connected', 15_000);

describe('the Discord bot', () => {
  let standIn: DiscordStandIn;
  let testApp: App;
  beforeAll(async () => {
    standIn = await DiscordStandIn.start();
    testApp = await startTestApp(standIn.env({ channel: true }));
    await switchAnnouncementsOff(testApp.app);
    await connected(testApp);
  });
  afterAll(async () => {
    await testApp?.close();
    await standIn?.close();
  });
  afterEach(async () => {
    if (await testApp.app.raffles.isOpen()) await testApp.app.raffles.abort(ADMIN);
  });

  it('logs in, registers /join on the guild and asks only for the intents it needs', async () => {
    const [command] = standIn.commands.get(standIn.guildId) ?? [];
    expect(command).toMatchObject({ name: 'join', description_localizations: { fr: expect.any(String) } });
    const { intents } = standIn.identifies.at(-1) ?? { intents: 0 };
    expect(intents).toBe(
      GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.MessageContent,
    );
    expect(testApp.app.integrations.status('discord')).toMatchObject({
      state: 'connected',
      target: standIn.guildId,
      canSendTestMessage: true,
    });
  });

  it('enters members who use /join and answers each ephemerally, every time', async () => {
    const ana = member('ana', { globalName: 'Ana G' });
    const bo = member('bo');
    const cy = member('cy', { globalName: 'Cy', nick: 'Cy the Racer' });

    const early = await standIn.interaction(ana);
    expect(early.type).toBe(4);
    expect(isEphemeral(early)).toBe(true);
    expect(early.data.content).toBe(`<@${ana.id}>: no raffle is open right now.`);

    await testApp.app.raffles.start(ADMIN, 2);
    expect((await standIn.interaction(ana)).data.content).toBe(
      `<@${ana.id}>: you're in the raffle. Good luck!`,
    );
    // Already in: the chat's once-per-raffle rule does not apply, a command is always answered.
    const again = await standIn.interaction(ana);
    expect(again.data.content).toBe(`<@${ana.id}>: you're already in this raffle.`);
    expect(isEphemeral(again)).toBe(true);
    expect((await standIn.interaction(bo)).data.content).toContain("you're in the raffle");
    expect((await standIn.interaction(cy)).data.content).toContain("you're in the raffle");

    const view = await testApp.app.integrations.adminView();
    expect(view.openRaffleEntries).toMatchObject({ discord: 3 });
    const names = view.recentEvents.filter((e) => e.kind === 'join').map((e) => e.displayName);
    expect(names.slice(0, 3)).toEqual(['Cy the Racer', 'bo', 'Ana G']);
  });

  it('reads the text command in the channel and answers once per viewer and raffle', async () => {
    const dee = member('dee');
    const eve = member('eve');
    await testApp.app.raffles.start(ADMIN, 2);
    const before = standIn.messages.length;
    const mentioned = (who: DiscordMember) =>
      standIn.messages.slice(before).filter((m) => m.content.includes(`<@${who.id}>`));
    standIn.say(dee, 'hello everyone');
    standIn.say(dee, '!JOIN');
    standIn.say(eve, '!join please');
    await until(() => mentioned(dee).length > 0 && mentioned(eve).length > 0);
    for (const answer of [...mentioned(dee), ...mentioned(eve)]) {
      expect(answer).toMatchObject({ channelId: standIn.channelId, replyTo: null });
      expect(answer.content).toMatch(/^<@\d+>(, <@\d+>)?: you're in the raffle\. Good luck!$/);
    }
    // Answers of the same moment share a message (channel-answers.ts): at most one each here.
    expect(standIn.messages.length - before).toBeLessThanOrEqual(2);
    // Dee again: already in, and already answered in this raffle; Fay is new.
    const fay = member('fay');
    standIn.say(dee, '!join');
    standIn.say(fay, '!join');
    await until(() => mentioned(fay).length > 0);
    await until(async () => (await testApp.app.integrations.adminView()).openRaffleEntries?.discord === 3);
    expect(mentioned(dee)).toHaveLength(1);
    expect(mentioned(fay)[0]?.content).toContain("you're in the raffle");
  });

  it('sends the admin’s test message in the channel', async () => {
    await testApp.app.integrations.sendTestMessage(ADMIN, 'discord');
    await until(() =>
      standIn.messages.some((m) => m.content === 'Telerace test message: the bot is connected.'),
    );
  });

  it('resumes its gateway session when the connection drops, and keeps answering', async () => {
    const resumes = standIn.resumes;
    standIn.dropConnections(4000);
    await until(() => standIn.resumes > resumes && standIn.connectedSessions === 1);
    await connected(testApp);
    const callback = await standIn.interaction(member('gus'));
    expect(callback.data.content).toContain('no raffle is open');
  });
});

describe('Discord loyalty', () => {
  const tickets = async (testApp: App, discordId: string) => {
    const user = await buildUser(testApp.app.database.db, { discordId });
    return async () => {
      const response = await testApp.app.inject({
        url: '/api/me/tickets',
        headers: await authHeader(testApp.app, user),
      });
      return response.json().breakdown.loyalty as number;
    };
  };

  it('counts the configured role as a subscription, removed with the role', async () => {
    const standIn = await DiscordStandIn.start();
    const testApp = await startTestApp(standIn.env({ loyaltyRole: true }));
    try {
      await connected(testApp);
      const supporter = member('hal', { roles: [standIn.roleId] });
      const loyalty = await tickets(testApp, supporter.id);
      expect(await loyalty()).toBe(0);
      await standIn.interaction(supporter);
      await until(async () => (await loyalty()) === 5);
      // A booster without the role: the role is the rule when it is configured.
      const booster = member('ida', { premiumSince: new Date(Date.now() - 400 * 86_400_000).toISOString() });
      const boosterLoyalty = await tickets(testApp, booster.id);
      await standIn.interaction(booster);
      await standIn.interaction({ ...supporter, roles: [] });
      await until(async () => (await loyalty()) === 0);
      expect(await boosterLoyalty()).toBe(0);
      const events = (await testApp.app.integrations.adminView()).recentEvents.map((e) => e.kind);
      expect(events.filter((kind) => kind === 'subscription')).toHaveLength(1);
      expect(events.filter((kind) => kind === 'subscription_end')).toHaveLength(1);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });

  it('records a loyalty the database refused a moment later by itself, once', async () => {
    const standIn = await DiscordStandIn.start();
    const testApp = await startTestApp(standIn.env({ loyaltyRole: true }));
    try {
      await connected(testApp);
      const supporter = member('kit', { roles: [standIn.roleId] });
      const loyalty = await tickets(testApp, supporter.id);
      const hiccup = await failNextWrites(testApp.app.database.db, 'subscriptions');
      try {
        await standIn.interaction(supporter);
        await until(async () => (await hiccup.refused()) === 1);
        // Discord does not deliver the interaction again, and the member may not act again.
        await until(async () => (await loyalty()) === 5);
      } finally {
        await hiccup.remove();
      }
      await standIn.interaction(supporter);
      await standIn.interaction(supporter);
      const subscriptions = async () =>
        (await testApp.app.integrations.adminView()).recentEvents.filter(
          (e) => e.kind === 'subscription' && e.displayName === 'kit',
        );
      expect(await subscriptions()).toHaveLength(1);
      expect(await loyalty()).toBe(5);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });

  it('counts server boosters for the months they have boosted, without a role configured', async () => {
    const standIn = await DiscordStandIn.start();
    const testApp = await startTestApp(standIn.env({ channel: true }));
    try {
      await connected(testApp);
      const since = new Date();
      since.setUTCMonth(since.getUTCMonth() - 7);
      const booster = member('jo', { premiumSince: since.toISOString() });
      const loyalty = await tickets(testApp, booster.id);
      // Seen on a message in the channel (no raffle needed): 6 months' tier.
      standIn.say(booster, 'hi');
      standIn.say(booster, '!join');
      await until(async () => (await loyalty()) === 45);
      await standIn.interaction({ ...booster, premiumSince: null });
      await until(async () => (await loyalty()) === 0);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });
});

describe('Discord failures', () => {
  it('a refused token is an error state, retried with backoff, never the token in the log', async () => {
    const standIn = await DiscordStandIn.start();
    const wrongToken = 'a-wrong-discord-bot-token-0123456789';
    const testApp = await startTestApp({ ...standIn.env(), DISCORD_BOT_TOKEN: wrongToken });
    try {
      await until(() => testApp.app.integrations.status('discord').state === 'error');
      expect(testApp.app.integrations.status('discord').lastError).toMatch(/invalid token/i);
      // Retried after the first backoff delay, and the server carries on.
      await until(() => standIn.unauthorized >= 2, 10_000);
      expect((await testApp.app.inject({ url: '/api/health' })).statusCode).toBe(200);
      expect(testApp.logText()).not.toContain(wrongToken);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });

  it('a gateway that closes for good (4004) is an error state, then connected once it takes the bot', async () => {
    const standIn = await DiscordStandIn.start();
    standIn.refuseIdentify = true;
    const testApp = await startTestApp(standIn.env());
    try {
      await until(() => testApp.app.integrations.status('discord').state === 'error');
      expect(testApp.app.integrations.status('discord').lastError).toBe('Discord refused the bot token');
      standIn.refuseIdentify = false;
      await connected(testApp);
      expect(standIn.identifies.length).toBeGreaterThanOrEqual(2);
    } finally {
      await testApp.close();
      await standIn.close();
    }
  });

  it('stops cleanly: closing the app closes the gateway connection and retries nothing', async () => {
    const standIn = await DiscordStandIn.start();
    const testApp = await startTestApp(standIn.env());
    await connected(testApp);
    expect(standIn.connectedSessions).toBe(1);
    await testApp.close();
    await until(() => standIn.connectedSessions === 0);
    const identifies = standIn.identifies.length;
    await standIn.close();
    expect(standIn.identifies.length).toBe(identifies);
  });

  it('an unreachable Discord is an error state, not a crash', async () => {
    const testApp = await startTestApp({
      DISCORD_BOT_TOKEN: 'token-for-nowhere',
      DISCORD_GUILD_ID: '123456789',
      DISCORD_API_URL: 'http://127.0.0.1:1/api/v10',
    });
    try {
      await until(() => testApp.app.integrations.status('discord').state === 'error');
      expect(testApp.app.integrations.status('discord').lastError).toMatch(/ECONNREFUSED|connect/i);
    } finally {
      await testApp.close();
    }
  });
});

describe('Discord helpers', () => {
  it('splits DISCORD_API_URL into discord.js’s base and version', () => {
    expect(restOptions('https://discord.com/api/v10')).toEqual({
      api: 'https://discord.com/api',
      version: '10',
    });
    expect(restOptions('http://127.0.0.1:5/api/v10/')).toEqual({
      api: 'http://127.0.0.1:5/api',
      version: '10',
    });
    expect(restOptions('http://127.0.0.1:5/api')).toEqual({ api: 'http://127.0.0.1:5/api', version: '10' });
  });

  it('counts whole months of boosting and applies the loyalty rule', () => {
    const at = (iso: string) => new Date(iso);
    expect(wholeMonthsBetween(at('2024-01-31T12:00:00Z'), at('2024-02-29T12:00:00Z'))).toBe(0);
    expect(wholeMonthsBetween(at('2024-01-15T12:00:00Z'), at('2024-02-15T12:00:00Z'))).toBe(1);
    expect(wholeMonthsBetween(at('2023-01-15T12:00:00Z'), at('2024-01-15T11:59:00Z'))).toBe(11);
    const now = at('2024-07-01T00:00:00Z');
    const booster = { roles: [], premiumSince: at('2024-01-01T00:00:00Z') };
    expect(loyaltyMonths(booster, null, now)).toBe(6);
    expect(loyaltyMonths(booster, '42', now)).toBeNull();
    expect(loyaltyMonths({ roles: ['42'], premiumSince: null }, '42', now)).toBe(0);
    expect(loyaltyMonths({ roles: [], premiumSince: null }, null, now)).toBeNull();
  });

  it('batches channel answers per outcome within Discord’s message limit', async () => {
    const sent: string[] = [];
    const answers = new ChannelAnswers(
      (outcome, mentions) => `${mentions.join(', ')}: ${outcome}`,
      async (text) => void sent.push(text),
      5,
    );
    const many = Array.from({ length: 150 }, (_, i) => `<@${10_000_000_000_000_000n + BigInt(i)}>`);
    for (const mention of many) answers.add('entered', mention);
    answers.add('already_in', '<@1>');
    await until(() => sent.length >= 3);
    expect(sent.every((text) => text.length <= MESSAGE_LIMIT)).toBe(true);
    expect(sent.filter((text) => text.endsWith(': entered'))).toHaveLength(2);
    expect(sent.at(-1)).toBe('<@1>: already_in');
    answers.stop();
  });
});
