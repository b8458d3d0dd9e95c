/**
 * The Discord bot (docs/integrations.md "Discord"): a discord.js client on the gateway that
 * registers `/join` on the guild, enters members who use it (answered ephemerally: only they see
 * it) or who type the join command in DISCORD_CHANNEL_ID, and turns their role or boost into
 * loyalty (discord-loyalty.ts).
 *
 * Connection: discord.js resumes or re-identifies by itself after a gateway disconnect. What it
 * does not handle, this does, with backoff (1 s doubling to 60 s) on a fresh client: a refused
 * login (bad token: 401), a gateway closing for good (4004 bad token, 4014 a privileged intent
 * not enabled), no READY in time, a reconnect that does not come back, `/join` not registered.
 * Nothing here throws out to the server; errors are logged without the token.
 */
import { Backoff } from '@telerace/protocol';
import type { ChatInputCommandInteraction, Client, Interaction, Message } from 'discord.js';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatAnnouncement } from '../announcement-texts.js';
import { discordName } from '../chat-names.js';
import type { IntegrationsService, Viewer } from '../integrations.service.js';
import { ChannelAnswers, MESSAGE_LIMIT } from './channel-answers.js';
import type { DiscordBotSettings } from './discord.config.js';
import type { DiscordLoyalty } from './discord-loyalty.js';
import { type AnyMember, memberStanding } from './discord-loyalty.js';

/**
 * discord.js, loaded when the bot first connects: a server without Discord configured does not
 * pay for importing it (about a second on a small machine).
 */
type DiscordJs = typeof import('discord.js');
let discordJs: Promise<DiscordJs> | undefined;
const loadDiscordJs = () => {
  discordJs ??= import('discord.js');
  return discordJs;
};

/** From login to the guild being ready; past this the attempt failed. */
export const CONNECT_TIMEOUT_MS = 30_000;
/** A gateway reconnect that has not resumed by then is replaced by a fresh login. */
export const RECONNECT_TIMEOUT_MS = 30_000;

/** Gateway close codes after which discord.js gives up, and what they mean to the operator. */
const CLOSE_REASONS: Record<number, string> = {
  4004: 'Discord refused the bot token',
  4010: 'Discord refused the shard',
  4011: 'Discord requires sharding for this bot',
  4012: 'Discord refused the gateway version',
  4013: 'Discord refused the intents',
  4014: 'Discord refused the Message Content intent: enable it for the bot in the Developer Portal, or unset DISCORD_CHANNEL_ID',
};

const FAILED_JOIN: Record<'en' | 'fr', string> = {
  en: 'Something went wrong; please try again in a moment.',
  fr: 'Un problème est survenu ; réessaie dans un instant.',
};

/** The guild command: `/join`, described in English and French. */
const JOIN_DESCRIPTION = {
  en: 'Enter the raffle that is open on the stream',
  fr: 'Participer au tirage ouvert pendant le stream',
};

export interface DiscordBotDeps {
  settings: DiscordBotSettings;
  /** The REST API base with its version (`DISCORD_API_URL`, e.g. https://discord.com/api/v10). */
  apiUrl: string;
  hub: IntegrationsService;
  loyalty: DiscordLoyalty;
  log: FastifyBaseLogger;
}

/** discord.js wants the base and the version apart: `https://discord.com/api` + `10`. */
export function restOptions(apiUrl: string): { api: string; version: string } {
  const url = apiUrl.replace(/\/+$/, '');
  const match = /^(.*)\/v(\d+)$/.exec(url);
  return match ? { api: match[1] as string, version: match[2] as string } : { api: url, version: '10' };
}

export class DiscordBot {
  readonly #deps: DiscordBotDeps;
  readonly #backoff = new Backoff({ initialMs: 1_000, maxMs: 60_000 });
  readonly #answers: ChannelAnswers | null;
  #client: Client | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #watchdog: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(deps: DiscordBotDeps) {
    this.#deps = deps;
    this.#answers =
      deps.settings.channelId === null
        ? null
        : new ChannelAnswers(
            (outcome, mentions) => deps.hub.reply(outcome, mentions),
            (text) => this.#post(text),
          );
  }

  /** Starts connecting in the background; returns at once. */
  start(): void {
    // Again after a stop when this instance leads again (issue 15).
    this.#stopped = false;
    this.#deps.loyalty.start();
    this.#deps.hub.register({
      id: 'discord',
      target: this.#deps.settings.guildId,
      ...(this.#deps.settings.channelId === null
        ? {}
        : {
            sendTestMessage: (text) => this.#send(text),
            announce: (announcement) => this.announce(announcement),
          }),
    });
    void this.#connect();
  }

  /**
   * Posts an announcement in DISCORD_CHANNEL_ID, pinging nobody (names are plain text, their
   * markdown and mentions escaped: chat-names.ts). discord.js's REST queue keeps to the channel's rate limit, which the join
   * answers share. Skipped while the bot is not connected or has no channel.
   */
  announce(announcement: ChatAnnouncement): void {
    if (this.#stopped || this.#deps.settings.channelId === null || !this.#client?.isReady()) {
      this.#deps.log.debug({ announcement: announcement.kind }, 'discord: announcement skipped');
      return;
    }
    const text = this.#deps.hub.announcementText(announcement, {
      maxLength: MESSAGE_LIMIT,
      escapeName: discordName,
    });
    void this.#post(text, []);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clearTimers();
    this.#answers?.stop();
    this.#deps.loyalty.stop();
    const client = this.#client;
    this.#client = null;
    await client?.destroy().catch(() => {});
  }

  // ── connection ─────────────────────────────────────────────────────────────────────────

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    this.#deps.hub.setState('discord', 'connecting');
    let client: Client | null = null;
    try {
      const lib = await loadDiscordJs();
      if (this.#stopped) return;
      client = this.#createClient(lib);
      this.#client = client;
      this.#arm(CONNECT_TIMEOUT_MS, client, 'Discord did not get ready in time');
      await client.login(this.#deps.settings.botToken);
    } catch (error) {
      await this.#fail(client, error);
    }
  }

  #createClient(lib: DiscordJs): Client {
    const { Client, Events, GatewayIntentBits } = lib;
    const intents = [GatewayIntentBits.Guilds];
    // The text command needs the messages and their content (a privileged intent to enable).
    if (this.#deps.settings.channelId !== null) {
      intents.push(GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent);
    }
    const client = new Client({
      intents,
      rest: restOptions(this.#deps.apiUrl),
      // Answers mention their viewer; nothing a viewer types can make the bot ping @everyone.
      allowedMentions: { parse: ['users'] },
    });
    client.once(Events.ClientReady, () => void this.#ready(client, lib));
    client.on(Events.ShardReconnecting, () => {
      if (client !== this.#client) return;
      this.#deps.hub.setState('discord', 'connecting');
      this.#arm(RECONNECT_TIMEOUT_MS, client, 'Discord’s gateway did not come back');
    });
    const back = () => {
      if (client !== this.#client || !client.isReady()) return;
      this.#clearWatchdog();
      this.#deps.hub.setState('discord', 'connected');
    };
    client.on(Events.ShardResume, back);
    client.on(Events.ShardReady, back);
    client.on(Events.ShardDisconnect, (event) => {
      const reason = CLOSE_REASONS[event.code] ?? `Discord’s gateway closed (code ${event.code})`;
      void this.#fail(client, new Error(reason));
    });
    // An 'error' without a listener would be thrown by the EventEmitter: log it instead.
    client.on(Events.Error, (error) =>
      this.#deps.log.warn({ err: this.#scrubbed(error) }, 'discord: client error'),
    );
    client.on(Events.ShardError, (error) =>
      this.#deps.log.warn({ err: this.#scrubbed(error) }, 'discord: gateway error'),
    );
    client.on(Events.InteractionCreate, (interaction) => {
      this.#onInteraction(interaction, lib).catch((error) => this.#unexpected(error));
    });
    if (this.#deps.settings.channelId !== null) {
      client.on(Events.MessageCreate, (message) => {
        this.#onMessage(message).catch((error) => this.#unexpected(error));
      });
    }
    return client;
  }

  /** The guild is there: register `/join` (PUT the guild's commands), then connected. */
  async #ready(client: Client, { SlashCommandBuilder, InteractionContextType }: DiscordJs): Promise<void> {
    if (client !== this.#client) return;
    try {
      const join = new SlashCommandBuilder()
        .setName('join')
        .setDescription(JOIN_DESCRIPTION.en)
        .setDescriptionLocalizations({ fr: JOIN_DESCRIPTION.fr })
        .setContexts(InteractionContextType.Guild);
      if (!client.application) throw new Error('READY carried no application');
      await client.application.commands.set([join.toJSON()], this.#deps.settings.guildId);
    } catch (error) {
      await this.#fail(client, new Error(`could not register /join on the guild: ${this.#message(error)}`));
      return;
    }
    if (client !== this.#client) return;
    this.#clearWatchdog();
    this.#backoff.reset();
    this.#deps.hub.setState('discord', 'connected');
    this.#deps.log.info({ guildId: this.#deps.settings.guildId }, 'discord: /join registered, bot connected');
  }

  /**
   * This client failed (null: none could be made): error state, let it go, and try a fresh one
   * after the backoff delay.
   */
  async #fail(client: Client | null, error: unknown): Promise<void> {
    if (client !== this.#client || this.#stopped) return;
    this.#client = null;
    this.#clearTimers();
    const message = this.#message(error);
    const delay = this.#backoff.next();
    this.#deps.hub.setState('discord', 'error', message);
    this.#deps.log.warn({ error: message, retryInMs: delay }, 'discord: connection failed, retrying');
    await client?.destroy().catch(() => {});
    if (this.#stopped) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#connect();
    }, delay);
  }

  /** Fails the client unless it gets (back to) ready within `ms`. */
  #arm(ms: number, client: Client, reason: string): void {
    this.#clearWatchdog();
    this.#watchdog = setTimeout(() => void this.#fail(client, new Error(reason)), ms);
  }

  #clearWatchdog(): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = null;
  }

  #clearTimers(): void {
    this.#clearWatchdog();
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  // ── what members do ────────────────────────────────────────────────────────────────────

  async #onInteraction(interaction: Interaction, { MessageFlags }: DiscordJs): Promise<void> {
    if (!interaction.isChatInputCommand() || interaction.commandName !== 'join') return;
    if (interaction.guildId !== this.#deps.settings.guildId) return;
    const viewer = this.#viewer(interaction);
    let text: string;
    try {
      const { outcome } = await this.#deps.hub.join(viewer);
      text = this.#deps.hub.reply(outcome, [`<@${viewer.platformUserId}>`]);
    } catch (error) {
      this.#deps.log.error({ err: this.#scrubbed(error) }, 'discord: /join failed');
      text = FAILED_JOIN[this.#deps.hub.settings.language];
    }
    // A command must be answered (within 3 s) even when the chat's once-per-raffle rule would not.
    try {
      await interaction.reply({ content: text, flags: MessageFlags.Ephemeral });
    } catch (error) {
      this.#deps.log.warn({ error: this.#message(error) }, 'discord: could not answer /join');
    }
    await this.#deps.loyalty.seen(viewer, memberStanding(interaction.member as AnyMember));
  }

  async #onMessage(message: Message): Promise<void> {
    if (message.author.bot || message.channelId !== this.#deps.settings.channelId) return;
    if (!this.#deps.hub.isJoinCommand(message.content)) return;
    const viewer: Viewer = {
      platform: 'discord',
      platformUserId: message.author.id,
      displayName: message.member?.displayName ?? message.author.displayName,
    };
    try {
      const { outcome, answer } = await this.#deps.hub.join(viewer);
      if (answer) this.#answers?.add(outcome, `<@${viewer.platformUserId}>`);
    } catch (error) {
      this.#deps.log.error({ err: this.#scrubbed(error) }, 'discord: the text join command failed');
    }
    await this.#deps.loyalty.seen(viewer, memberStanding(message.member));
  }

  #viewer(interaction: ChatInputCommandInteraction): Viewer {
    const { user, member } = interaction;
    const nick = member && 'nick' in member ? member.nick : null;
    const displayName =
      member && 'displayName' in member ? member.displayName : (nick ?? user.globalName ?? user.username);
    return { platform: 'discord', platformUserId: user.id, displayName };
  }

  // ── messages in the channel ────────────────────────────────────────────────────────────

  /**
   * The admin's test message: errors reach the admin. `mentions`: what the message may ping
   * (answers mention their viewers; announcements no one).
   */
  async #send(text: string, mentions: 'users'[] = ['users']): Promise<void> {
    const client = this.#client;
    const channelId = this.#deps.settings.channelId;
    if (!client || channelId === null) throw new Error('Discord is not connected');
    await client.rest.post(`/channels/${channelId}/messages`, {
      body: { content: text, allowed_mentions: { parse: mentions } },
    });
  }

  /** A batch of answers or an announcement: failures are logged, never thrown. */
  async #post(text: string, mentions?: 'users'[]): Promise<void> {
    try {
      await this.#send(text, mentions);
    } catch (error) {
      this.#deps.log.warn({ error: this.#message(error) }, 'discord: could not post in the channel');
    }
  }

  /** What a handler did not expect: logged, the bot carries on. */
  #unexpected(error: unknown): void {
    this.#deps.log.error({ err: this.#scrubbed(error) }, 'discord: unexpected error');
  }

  // ── never the token in a log ───────────────────────────────────────────────────────────

  #message(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return text.split(this.#deps.settings.botToken).join('[token]');
  }

  #scrubbed(error: unknown): { message: string; name?: string } {
    return { message: this.#message(error), ...(error instanceof Error ? { name: error.name } : {}) };
  }
}
