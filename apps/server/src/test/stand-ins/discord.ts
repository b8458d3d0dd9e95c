/**
 * Test support: a local stand-in for Discord that discord.js connects to as it does to the real
 * thing (docs/integrations.md "Discord"). One node:http server plays the REST API v10 under /api
 * (`DISCORD_API_URL` = `apiUrl`) and, on the same port, the gateway v10: JSON over WebSocket, no
 * compression (discord.js asks for zlib-stream only when zlib-sync is installed, and it is not).
 *
 * REST: GET /gateway/bot, /users/@me and /applications/@me, PUT the guild's commands, POST an
 * interaction's callback and POST a channel message; every call but the callback needs
 * `Authorization: Bot <token>` (401 otherwise, like Discord).
 * Gateway: HELLO → IDENTIFY (a wrong token closes with 4004) → READY with the guild unavailable →
 * GUILD_CREATE; HEARTBEAT → ACK; RESUME of a known session → RESUMED. Tests then play members:
 * `interaction(member)` dispatches a `/join` INTERACTION_CREATE and resolves with the bot's
 * callback; `say(member, text)` dispatches a MESSAGE_CREATE in the channel.
 *
 * Also runnable alone for the end-to-end test or by hand:
 *   node --import tsx apps/server/src/test/stand-ins/discord.ts --port 0
 * prints one JSON line with its URLs and ids.
 *
 * Over 400 lines on purpose: a stand-in plays a whole external API in one file a test reads alone.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { readJson } from './request-body.js';

/** A guild member as the stand-in plays them. */
export interface DiscordMember {
  id: string;
  username: string;
  globalName?: string | null;
  /** The member's nickname in the guild. */
  nick?: string | null;
  /** Role ids (the loyalty role, …). */
  roles?: string[];
  /** ISO time the member started boosting the guild; null: not a booster. */
  premiumSince?: string | null;
}

/** An answer the bot gave to an interaction (POST /interactions/:id/:token/callback). */
export interface InteractionCallback {
  interactionId: string;
  type: number;
  data: { content?: string; flags?: number; [key: string]: unknown };
}

/** A message the bot posted (POST /channels/:id/messages). */
export interface PostedMessage {
  channelId: string;
  content: string;
  /** The message it answers, if any. */
  replyTo: string | null;
}

export interface DiscordStandInOptions {
  token?: string;
  guildId?: string;
  channelId?: string;
  /** A role the guild has (the loyalty role in tests). */
  roleId?: string;
  port?: number;
}

interface Session {
  id: string;
  socket: WebSocket;
  sequence: number;
  intents: number;
}

const HEARTBEAT_INTERVAL_MS = 41_250;
const EPHEMERAL = 1 << 6;

let increment = 0;
/** A Discord id: milliseconds since 2015 in the high bits, a counter in the low ones. */
const snowflake = () =>
  ((BigInt(Date.now() - 1_420_070_400_000) << 22n) | BigInt(++increment & 0xfff)).toString();

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const apiUser = (member: DiscordMember) => ({
  id: member.id,
  username: member.username,
  global_name: member.globalName ?? null,
  discriminator: '0',
  avatar: null,
});

const apiMember = (member: DiscordMember) => ({
  roles: member.roles ?? [],
  premium_since: member.premiumSince ?? null,
  nick: member.nick ?? null,
  avatar: null,
  joined_at: '2024-01-01T00:00:00.000Z',
  deaf: false,
  mute: false,
  flags: 0,
  pending: false,
});

export class DiscordStandIn {
  readonly token: string;
  readonly guildId: string;
  readonly channelId: string;
  readonly roleId: string;
  readonly applicationId = snowflake();
  readonly botUser = {
    id: this.applicationId,
    username: 'telerace-bot',
    global_name: null,
    discriminator: '0',
    avatar: null,
    bot: true,
  };
  /** `http://127.0.0.1:PORT`. */
  url = '';
  /** Commands the bot registered, by guild id (the last PUT). */
  readonly commands = new Map<string, Array<Record<string, unknown>>>();
  /** Every IDENTIFY's payload (intents, …), tokens included: what the bot asked for. */
  readonly identifies: Array<{ token: string; intents: number }> = [];
  readonly callbacks: InteractionCallback[] = [];
  readonly messages: PostedMessage[] = [];
  /** REST calls refused for their token (a bad token's login attempts). */
  unauthorized = 0;
  resumes = 0;
  /** The gateway closes every IDENTIFY with 4004 (a token the REST API took but the gateway did not). */
  refuseIdentify = false;

  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #sessions = new Map<string, Session>();
  readonly #waiting = new Map<string, (callback: InteractionCallback) => void>();

  private constructor(options: DiscordStandInOptions) {
    this.token = options.token ?? `stand-in-bot-token-${randomBytes(6).toString('hex')}`;
    this.guildId = options.guildId ?? snowflake();
    this.channelId = options.channelId ?? snowflake();
    this.roleId = options.roleId ?? snowflake();
    this.#server = createServer((request, response) => {
      this.#rest(request, response).catch((error: unknown) =>
        json(response, 500, { message: String(error), code: 0 }),
      );
    });
    this.#wss = new WebSocketServer({ server: this.#server, path: '/gateway' });
    this.#wss.on('connection', (socket) => this.#gateway(socket));
  }

  static async start(options: DiscordStandInOptions = {}): Promise<DiscordStandIn> {
    const standIn = new DiscordStandIn(options);
    await new Promise<void>((resolve) => standIn.#server.listen(options.port ?? 0, '127.0.0.1', resolve));
    standIn.url = `http://127.0.0.1:${(standIn.#server.address() as AddressInfo).port}`;
    return standIn;
  }

  /** `DISCORD_API_URL` for the server. */
  get apiUrl(): string {
    return `${this.url}/api/v10`;
  }

  get gatewayUrl(): string {
    return `${this.url.replace(/^http/, 'ws')}/gateway`;
  }

  /** The environment a server needs to use this stand-in. */
  env(extra: { channel?: boolean; loyaltyRole?: boolean } = {}): Record<string, string> {
    return {
      DISCORD_BOT_TOKEN: this.token,
      DISCORD_GUILD_ID: this.guildId,
      DISCORD_API_URL: this.apiUrl,
      ...(extra.channel ? { DISCORD_CHANNEL_ID: this.channelId } : {}),
      ...(extra.loyaltyRole ? { DISCORD_LOYALTY_ROLE_ID: this.roleId } : {}),
    };
  }

  /** Sessions that identified and have not closed. */
  get connectedSessions(): number {
    return [...this.#sessions.values()].filter((s) => s.socket.readyState === WebSocket.OPEN).length;
  }

  /** A member uses `/join` (or another command); resolves with the bot's callback. */
  interaction(member: DiscordMember, commandName = 'join', timeoutMs = 10_000): Promise<InteractionCallback> {
    const session = this.#liveSession();
    const id = snowflake();
    const command = this.commands.get(this.guildId)?.find((c) => c.name === commandName);
    const answered = new Promise<InteractionCallback>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`the bot did not answer the /${commandName} interaction in ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(id, (callback) => {
        clearTimeout(timer);
        resolve(callback);
      });
    });
    this.#dispatch(session, 'INTERACTION_CREATE', {
      id,
      application_id: this.applicationId,
      type: 2,
      data: { id: command?.id ?? snowflake(), name: commandName, type: 1, guild_id: this.guildId },
      guild_id: this.guildId,
      channel: { id: this.channelId, type: 0, guild_id: this.guildId, name: 'stream-chat' },
      channel_id: this.channelId,
      member: { ...apiMember(member), user: apiUser(member), permissions: '0' },
      token: `interaction-token-${randomBytes(8).toString('hex')}`,
      version: 1,
      app_permissions: '0',
      locale: 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': this.guildId },
      context: 0,
    });
    return answered;
  }

  /** A member writes `text` in the channel (MESSAGE_CREATE). Returns the message id. */
  say(member: DiscordMember, text: string, channelId = this.channelId): string {
    const id = snowflake();
    this.#dispatch(this.#liveSession(), 'MESSAGE_CREATE', {
      id,
      channel_id: channelId,
      guild_id: this.guildId,
      author: apiUser(member),
      member: apiMember(member),
      content: text,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      type: 0,
    });
    return id;
  }

  /** Closes every gateway connection with `code` (4000: an unknown error, which discord.js resumes). */
  dropConnections(code = 4000): void {
    for (const session of this.#sessions.values())
      session.socket.close(code, 'stand-in dropped the connection');
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ── REST ───────────────────────────────────────────────────────────────────────────────

  async #rest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', this.url).pathname.replace(/^\/api\/v10/, '');
    const method = request.method ?? 'GET';
    if (path.startsWith('/_stand-in/')) return this.#control(method, path, request, response);
    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (method === 'POST' && callback) {
      // Interaction callbacks are authorised by the interaction's token in the path, not the bot's.
      const body = await readJson(request);
      const answer: InteractionCallback = {
        interactionId: callback[1] as string,
        type: body.type as number,
        data: (body.data ?? {}) as InteractionCallback['data'],
      };
      this.callbacks.push(answer);
      this.#waiting.get(answer.interactionId)?.(answer);
      this.#waiting.delete(answer.interactionId);
      response.writeHead(204).end();
      return;
    }
    if (request.headers.authorization !== `Bot ${this.token}`) {
      this.unauthorized += 1;
      json(response, 401, { message: '401: Unauthorized', code: 0 });
      return;
    }
    if (method === 'GET' && path === '/gateway/bot') {
      return json(response, 200, {
        url: this.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/users/@me') return json(response, 200, this.botUser);
    if (method === 'GET' && path === '/applications/@me') {
      return json(response, 200, { id: this.applicationId, name: 'Telerace', flags: 0, bot: this.botUser });
    }
    const commands = /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/.exec(path);
    if (method === 'PUT' && commands) {
      if (commands[1] !== this.applicationId || commands[2] !== this.guildId) {
        return json(response, 404, { message: 'Unknown Guild', code: 10004 });
      }
      const body = (await readJson(request)) as unknown as Array<Record<string, unknown>>;
      const registered = body.map((command) => ({
        id: snowflake(),
        application_id: this.applicationId,
        guild_id: this.guildId,
        version: snowflake(),
        type: 1,
        default_member_permissions: null,
        nsfw: false,
        ...command,
        description: command.description ?? '',
      }));
      this.commands.set(this.guildId, registered);
      json(response, 200, registered);
      return;
    }
    const messages = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (method === 'POST' && messages) {
      const channelId = messages[1] as string;
      if (channelId !== this.channelId)
        return json(response, 404, { message: 'Unknown Channel', code: 10003 });
      const body = await readJson(request);
      const reference = body.message_reference as { message_id?: string } | undefined;
      const content = String(body.content ?? '');
      this.messages.push({ channelId, content, replyTo: reference?.message_id ?? null });
      json(response, 200, {
        id: snowflake(),
        channel_id: channelId,
        guild_id: this.guildId,
        author: this.botUser,
        content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: [],
        embeds: [],
        pinned: false,
        type: reference ? 19 : 0,
      });
      return;
    }
    json(response, 404, { message: '404: Not Found', code: 0 });
  }

  /**
   * The test's controls over HTTP, for a stand-in running as its own process (the end-to-end
   * test): POST /_stand-in/interaction {member, command?} answers with the bot's callback; POST
   * /_stand-in/say {member, text}; GET /_stand-in/state: what the bot registered and sent.
   */
  async #control(
    method: string,
    path: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (method === 'POST' && path === '/_stand-in/interaction') {
      const body = await readJson(request);
      return json(
        response,
        200,
        await this.interaction(body.member as DiscordMember, String(body.command ?? 'join')),
      );
    }
    if (method === 'POST' && path === '/_stand-in/say') {
      const body = await readJson(request);
      return json(response, 200, { id: this.say(body.member as DiscordMember, String(body.text)) });
    }
    if (method === 'GET' && path === '/_stand-in/state') {
      return json(response, 200, {
        connectedSessions: this.connectedSessions,
        commands: this.commands.get(this.guildId) ?? [],
        callbacks: this.callbacks,
        messages: this.messages,
      });
    }
    json(response, 404, { message: 'unknown stand-in control' });
  }

  // ── gateway ────────────────────────────────────────────────────────────────────────────

  #gateway(socket: WebSocket): void {
    let session: Session | undefined;
    const send = (payload: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
    };
    send({ op: 10, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS }, s: null, t: null });
    socket.on('message', (raw) => {
      let payload: { op: number; d: Record<string, unknown> | null };
      try {
        payload = JSON.parse(raw.toString());
      } catch {
        socket.close(4002, 'Decode error');
        return;
      }
      switch (payload.op) {
        case 1: // heartbeat
          send({ op: 11, d: null, s: null, t: null });
          break;
        case 2: {
          // identify
          const d = payload.d ?? {};
          this.identifies.push({ token: String(d.token), intents: Number(d.intents) });
          if (d.token !== this.token || this.refuseIdentify) {
            socket.close(4004, 'Authentication failed.');
            break;
          }
          session = { id: randomBytes(16).toString('hex'), socket, sequence: 0, intents: Number(d.intents) };
          this.#sessions.set(session.id, session);
          this.#dispatch(session, 'READY', {
            v: 10,
            user: { ...this.botUser, verified: true, mfa_enabled: false, flags: 0 },
            guilds: [{ id: this.guildId, unavailable: true }],
            session_id: session.id,
            resume_gateway_url: this.gatewayUrl,
            shard: [0, 1],
            application: { id: this.applicationId, flags: 0 },
            private_channels: [],
            relationships: [],
            presences: [],
            guild_join_requests: [],
            geo_ordered_rtc_regions: [],
            user_settings: {},
          });
          this.#dispatch(session, 'GUILD_CREATE', this.#guild());
          break;
        }
        case 6: {
          // resume
          const d = payload.d ?? {};
          const known = this.#sessions.get(String(d.session_id));
          if (!known || d.token !== this.token) {
            send({ op: 9, d: false, s: null, t: null });
            break;
          }
          known.socket = socket;
          session = known;
          this.resumes += 1;
          this.#dispatch(known, 'RESUMED', {});
          break;
        }
        default:
          break;
      }
    });
  }

  #dispatch(session: Session, t: string, d: unknown): void {
    session.sequence += 1;
    if (session.socket.readyState === WebSocket.OPEN) {
      session.socket.send(JSON.stringify({ op: 0, t, s: session.sequence, d }));
    }
  }

  #liveSession(): Session {
    const live = [...this.#sessions.values()].reverse().find((s) => s.socket.readyState === WebSocket.OPEN);
    if (!live) throw new Error('no bot is connected to the Discord stand-in');
    return live;
  }

  #guild() {
    const everyone = {
      id: this.guildId,
      name: '@everyone',
      color: 0,
      hoist: false,
      icon: null,
      unicode_emoji: null,
      position: 0,
      permissions: '1071698660929',
      managed: false,
      mentionable: false,
      flags: 0,
    };
    return {
      id: this.guildId,
      name: 'Telerace stand-in guild',
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: '100000000000000001',
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [everyone, { ...everyone, id: this.roleId, name: 'Supporters', position: 1 }],
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: 'en-US',
      public_updates_channel_id: null,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      joined_at: '2024-01-01T00:00:00.000Z',
      large: false,
      unavailable: false,
      member_count: 1,
      voice_states: [],
      members: [],
      channels: [
        {
          id: this.channelId,
          type: 0,
          guild_id: this.guildId,
          name: 'stream-chat',
          position: 0,
          permission_overwrites: [],
          topic: null,
          nsfw: false,
          last_message_id: null,
          rate_limit_per_user: 0,
          parent_id: null,
        },
      ],
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }
}

/** `/join`'s callback was an ephemeral message (only the member sees it). */
export const isEphemeral = (callback: InteractionCallback) => ((callback.data.flags ?? 0) & EPHEMERAL) !== 0;

// Run alone: print where it listens, serve until killed.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const index = process.argv.indexOf('--port');
  const port = index >= 0 ? Number(process.argv[index + 1]) : 0;
  const standIn = await DiscordStandIn.start({ port });
  process.stdout.write(
    `${JSON.stringify({
      url: standIn.url,
      apiUrl: standIn.apiUrl,
      gatewayUrl: standIn.gatewayUrl,
      token: standIn.token,
      guildId: standIn.guildId,
      channelId: standIn.channelId,
      roleId: standIn.roleId,
      applicationId: standIn.applicationId,
    })}\n`,
  );
  const stop = () => void standIn.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
