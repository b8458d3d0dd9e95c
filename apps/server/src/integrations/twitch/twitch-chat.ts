/**
 * The Twitch chat bot (tmi.js): joins the channel, turns a viewer's join command into a raffle
 * entry through the integrations hub, and answers through the paced sender. It reports its state
 * to the hub and reconnects with exponential backoff whatever went wrong (refused login, dropped
 * connection, no answer), never throwing out to the server.
 *
 * tmi.js's own reconnection is off: its timers cannot be cancelled, so a stopped server would
 * reconnect later. Each attempt is a fresh client instead, and a client that is given up is
 * disarmed (listeners off, socket closed, `connect` a no-op for its stray timers).
 */
import { Backoff, type BackoffSchedule, type ChatJoinOutcome } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import tmi, { type ChatUserstate, type Client } from 'tmi.js';
import type { Clock, ClockTimer } from '../../clock.js';
import type { ChatAnnouncement } from '../announcement-texts.js';
import type { IntegrationsService } from '../integrations.service.js';
import { ChatSender, TWITCH_MAX_MESSAGE_LENGTH } from './chat-sender.js';
import type { TwitchChatSettings } from './twitch.config.js';

export interface TwitchChatOptions {
  settings: TwitchChatSettings;
  hub: IntegrationsService;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Retry delays after a lost or failed connection (default: 1 s doubling to a minute). */
  backoff?: BackoffSchedule;
  /** An attempt that has not joined the channel by then is given up. */
  connectTimeoutMs?: number;
}

const DEFAULT_BACKOFF: BackoffSchedule = { initialMs: 1_000, maxMs: 60_000 };
/** Up to 10 % off each delay, so many servers restarted together do not knock in step. */
const RETRY_JITTER = 0.1;
/** A connection that held this long was healthy: the next failure retries quickly again. */
const STABLE_CONNECTION_MS = 30_000;

/**
 * How the bot mentions a viewer: by display name when it is the login with other capitals, else
 * by login (a localized display name, e.g. in Korean, does not notify anyone).
 */
export function mentionOf(login: string, displayName: string): string {
  return `@${displayName.toLowerCase() === login.toLowerCase() ? displayName : login}`;
}

/** host, port and TLS of TWITCH_IRC_URL as tmi.js takes them (it always uses 443 for TLS). */
export function ircConnection(url: string): { server: string; port: number; secure: boolean } {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'wss:';
  return { server: parsed.hostname, port: parsed.port ? Number(parsed.port) : secure ? 443 : 80, secure };
}

export class TwitchChat {
  readonly #settings: TwitchChatSettings;
  readonly #hub: IntegrationsService;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #backoff: Backoff;
  readonly #connectTimeoutMs: number;
  readonly #sender: ChatSender;
  #client: Client | null = null;
  #joined = false;
  #joinedAt = 0;
  #retryTimer: ClockTimer | undefined;
  #connectTimer: ClockTimer | undefined;
  /** Until `start` (this instance leads) and after `stop`. */
  #stopped = true;
  /** Twitch sent RECONNECT (server maintenance): the coming disconnection is planned. */
  #reconnectRequested = false;

  constructor(options: TwitchChatOptions) {
    this.#settings = options.settings;
    this.#hub = options.hub;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#backoff = new Backoff(options.backoff ?? DEFAULT_BACKOFF, { jitter: RETRY_JITTER });
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    const { secure, port } = ircConnection(options.settings.ircUrl);
    if (secure && port !== 443) {
      this.#log.warn(
        { port },
        'tmi.js always uses port 443 for wss://: the port of TWITCH_IRC_URL is ignored',
      );
    }
    this.#sender = new ChatSender({
      clock: options.clock,
      log: options.log,
      send: (text) => this.#say(text),
      compose: (outcome, mentions) => this.#hub.reply(outcome, mentions),
      isReady: () => this.#joined,
    });
  }

  /** The channel as the admin sees it. */
  get target(): string {
    return `#${this.#settings.channel}`;
  }

  /** Connects in the background; the hub hears how it goes. */
  start(): void {
    // Again after a stop when this instance leads again (issue 15).
    this.#stopped = false;
    this.#sender.restart();
    this.#connect();
  }

  /** Writes a line in the channel (the admin's test message), within the rate limit. */
  sendTestMessage(text: string): Promise<void> {
    return this.#sender.line(text);
  }

  /**
   * Posts an announcement as its own line, before the join answers waiting, within the rate limit.
   * Skipped when the bot is not in the channel now (not leading, reconnecting): an announcement
   * is news of the moment, not for after an outage.
   */
  announce(announcement: ChatAnnouncement): void {
    if (this.#stopped || !this.#joined) {
      this.#log.debug({ announcement: announcement.kind }, 'Twitch chat not joined: announcement skipped');
      return;
    }
    const text = this.#hub.announcementText(announcement, { maxLength: TWITCH_MAX_MESSAGE_LENGTH });
    this.#sender
      .line(text)
      .catch((error: unknown) =>
        this.#log.debug({ reason: String(error), announcement: announcement.kind }, 'announcement not sent'),
      );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clear(this.#retryTimer);
    this.#clock.clear(this.#connectTimer);
    this.#sender.stop();
    const client = this.#client;
    this.#client = null;
    this.#joined = false;
    if (client) await this.#disarm(client, true);
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#retryTimer = undefined;
    let client: Client;
    try {
      client = new tmi.Client({
        // No emote-set lookups (a call to api.twitch.tv), no membership JOIN/PART traffic.
        options: { skipUpdatingEmotesets: true, skipMembership: true, joinInterval: 300 },
        connection: { ...ircConnection(this.#settings.ircUrl), reconnect: false, timeout: 10_000 },
        identity: { username: this.#settings.botUsername, password: this.#settings.botToken },
        channels: [this.#settings.channel],
        logger: this.#tmiLogger(),
      });
    } catch (error) {
      this.#lost(null, `could not start the chat client: ${String(error)}`);
      return;
    }
    this.#client = client;
    this.#joined = false;
    client.on('join', (_channel: string, _user: string, self: boolean) => {
      if (self && client === this.#client) this.#onJoined();
    });
    client.on('chat', (_channel: string, tags: ChatUserstate, message: string, self: boolean) => {
      if (!self && client === this.#client) void this.#onChat(tags, message);
    });
    client.on('raw_message', (_copy: unknown, message: { command?: string }) => {
      if (message.command === 'RECONNECT' && client === this.#client) this.#reconnectRequested = true;
    });
    client.on('disconnected', (reason: string) => this.#lost(client, reason || 'disconnected'));
    this.#connectTimer = this.#clock.setTimeout(() => {
      if (client === this.#client && !this.#joined) {
        this.#lost(client, `no welcome from Twitch chat within ${this.#connectTimeoutMs / 1000} s`);
      }
    }, this.#connectTimeoutMs);
    client.connect().catch((reason: unknown) => this.#lost(client, String(reason)));
  }

  #onJoined(): void {
    this.#clock.clear(this.#connectTimer);
    this.#joined = true;
    this.#joinedAt = this.#clock.now().getTime();
    this.#hub.setState('twitch', 'connected');
    this.#log.info({ channel: this.target }, 'Twitch chat joined');
    this.#sender.resume();
  }

  async #onChat(tags: ChatUserstate, message: string): Promise<void> {
    try {
      if (!this.#hub.isJoinCommand(message)) return;
      const userId = tags['user-id'];
      const login = tags.username;
      if (!userId || !login) return;
      const displayName = tags['display-name'] || login;
      const { outcome, answer } = await this.#hub.join({
        platform: 'twitch',
        platformUserId: userId,
        displayName,
      });
      if (answer) this.#answer(outcome, mentionOf(login, displayName));
    } catch (error) {
      this.#log.warn({ err: error }, 'a Twitch join command could not be handled');
    }
  }

  #answer(outcome: ChatJoinOutcome, mention: string): void {
    if (!this.#stopped) this.#sender.answer(outcome, mention);
  }

  async #say(text: string): Promise<void> {
    const client = this.#client;
    if (!client || !this.#joined) throw new Error('not connected to Twitch chat');
    await client.say(this.#settings.channel, text);
  }

  /** The attempt or connection of `client` failed: report it and retry later. */
  #lost(client: Client | null, reason: string): void {
    if (this.#stopped || (client !== null && client !== this.#client)) return;
    const wasJoined = this.#joined;
    const heldMs = this.#clock.now().getTime() - this.#joinedAt;
    this.#clock.clear(this.#connectTimer);
    this.#client = null;
    this.#joined = false;
    if (client) void this.#disarm(client, false);
    if (this.#reconnectRequested) {
      // Routine on Twitch: not an error, and a fresh connection at once.
      this.#reconnectRequested = false;
      this.#hub.setState('twitch', 'connecting');
      this.#log.info('Twitch chat asked the bot to reconnect');
      this.#retryTimer = this.#clock.setTimeout(() => this.#connect(), 0);
      return;
    }
    if (wasJoined && heldMs >= STABLE_CONNECTION_MS) this.#backoff.reset();
    const wait = this.#backoff.next();
    const message = `Twitch chat ${wasJoined ? 'connection lost' : 'connection failed'}: ${reason}`;
    this.#hub.setState('twitch', 'error', message);
    this.#log.warn({ reason, retryInMs: wait }, 'Twitch chat unavailable, retrying');
    this.#retryTimer = this.#clock.setTimeout(() => this.#connect(), wait);
  }

  /** Makes a given-up client harmless: no events, no stray reconnection, socket closed. */
  async #disarm(client: Client, graceful: boolean): Promise<void> {
    client.removeAllListeners();
    // tmi.js answers a RECONNECT with its own uncancellable timer that calls connect().
    Object.assign(client, { connect: async () => ['', 0] });
    const socket = (
      client as unknown as { ws: { readyState: number; close(): void; terminate?(): void } | null }
    ).ws;
    if (!socket) return;
    try {
      if (graceful && socket.readyState === 1) {
        socket.close();
        // A server that never answers the close frame does not hold the process for ws's 30 s.
        setTimeout(() => socket.terminate?.(), 1_000).unref();
      } else if (socket.terminate) socket.terminate();
      else socket.close();
    } catch (error) {
      this.#log.debug({ err: error }, 'closing a Twitch chat socket failed');
    }
  }

  /** tmi.js's own lines go to debug: they include chat text; what matters is logged above. */
  #tmiLogger() {
    const log = this.#log;
    const write = (message: string) => log.debug({ tmi: String(message) }, 'tmi.js');
    return { info: write, warn: write, error: write };
  }
}
