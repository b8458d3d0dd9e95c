/**
 * Test support: a local stand-in for the YouTube Data API v3's live chat endpoints, on
 * node:http, answering like Google does (docs/integrations.md "YouTube"):
 *
 * - `GET liveChatMessages` pages through the chat with `nextPageToken` (the first call without a
 *   token returns the recent history), `maxResults` and `pollingIntervalMillis`;
 * - `POST liveChatMessages?part=snippet` writes in the chat (the channel owner's token only);
 * - `GET liveBroadcasts` (token), `search` and `videos` (key) find the active broadcast's chat;
 * - errors in Google's shape (`{error: {code, message, errors: [{reason}]}}`): a wrong key or
 *   token, `quotaExceeded` on demand, `liveChatEnded` once the broadcast ends.
 *
 * Tests drive it in-process (`say`, `superChat`, `sponsor`, `failNext`, `endBroadcast`, `sent`);
 * another process (the end-to-end test) drives it through `POST /stand-in/...`, see `control`.
 * Run alone: `node --import tsx apps/server/src/test/stand-ins/youtube.ts --port 4010`.
 *
 * Over 400 lines on purpose: a stand-in plays a whole external API in one file a test reads alone.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { readBody } from './request-body.js';

export interface StandInAuthor {
  channelId: string;
  displayName: string;
  /** Shows the member badge (authorDetails.isChatSponsor). */
  isChatSponsor?: boolean;
}

export interface YoutubeStandInOptions {
  port?: number;
  /** Accepted as `key=`; default 'stand-in-key'. */
  apiKey?: string;
  /** Accepted as `Authorization: Bearer`; the owner's token (may write). Default 'stand-in-token'. */
  oauthToken?: string;
  /** The owner's channel, searched with a key. Default 'UC-stand-in-owner'. */
  channelId?: string;
  /** What each chat page asks the client to wait. Default 1000. */
  pollingIntervalMillis?: number;
  /** Messages per page at most (YouTube: maxResults, 200–2000). Default 2000. */
  pageSize?: number;
  /** Whether the channel is live from the start (with chat 'stand-in-chat-1'). Default true. */
  live?: boolean;
}

interface StoredMessage {
  /** Which chat it was written in. */
  liveChatId: string;
  resource: Record<string, unknown>;
}

/** A request as it arrived, without its credentials. */
export interface StandInRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  at: number;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

function googleError(response: ServerResponse, code: number, reason: string, message: string): void {
  json(response, code, {
    error: { code, message, errors: [{ message, domain: 'youtube.liveChat', reason }] },
  });
}

const micros = (amount: number) => String(Math.round(amount * 1_000_000));

export class YoutubeStandIn {
  readonly #server: Server;
  readonly #options: Required<Omit<YoutubeStandInOptions, 'port' | 'live'>>;
  /** Every message of every chat, in order; a page token is an index in it. */
  readonly #log: StoredMessage[] = [];
  #broadcast: { videoId: string; liveChatId: string } | null = null;
  readonly #endedChats = new Set<string>();
  #chatSequence = 0;
  #failures: { reason: string; code: number; remaining: number } | null = null;
  /** Held answers to chat reads (`hold`), released by `release`. */
  #held: (() => void)[] | null = null;
  readonly requests: StandInRequest[] = [];
  url = '';
  pollingIntervalMillis: number;

  private constructor(options: YoutubeStandInOptions) {
    this.#options = {
      apiKey: options.apiKey ?? 'stand-in-key',
      oauthToken: options.oauthToken ?? 'stand-in-token',
      channelId: options.channelId ?? 'UC-stand-in-owner',
      pollingIntervalMillis: options.pollingIntervalMillis ?? 1_000,
      pageSize: options.pageSize ?? 2_000,
    };
    this.pollingIntervalMillis = this.#options.pollingIntervalMillis;
    if (options.live ?? true) this.goLive();
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) =>
        googleError(response, 500, 'backendError', String(error)),
      );
    });
  }

  static async start(options: YoutubeStandInOptions = {}): Promise<YoutubeStandIn> {
    const standIn = new YoutubeStandIn(options);
    await new Promise<void>((resolve) => standIn.#server.listen(options.port ?? 0, '127.0.0.1', resolve));
    const { port } = standIn.#server.address() as AddressInfo;
    standIn.url = `http://127.0.0.1:${port}/youtube/v3`;
    return standIn;
  }

  async close(): Promise<void> {
    this.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ── what a test does ───────────────────────────────────────────────────────────────────

  get apiKey(): string {
    return this.#options.apiKey;
  }
  get oauthToken(): string {
    return this.#options.oauthToken;
  }
  get channelId(): string {
    return this.#options.channelId;
  }
  /** The chat of the broadcast that is live (null when the channel is not live). */
  get liveChatId(): string | null {
    return this.#broadcast?.liveChatId ?? null;
  }

  /** The channel goes live with a new broadcast and chat; returns the chat id. */
  goLive(): string {
    this.#chatSequence += 1;
    this.#broadcast = {
      videoId: `stand-in-video-${this.#chatSequence}`,
      liveChatId: `stand-in-chat-${this.#chatSequence}`,
    };
    return this.#broadcast.liveChatId;
  }

  /** The broadcast ends: its chat answers `liveChatEnded`, nothing is live. */
  endBroadcast(): void {
    if (this.#broadcast) this.#endedChats.add(this.#broadcast.liveChatId);
    this.#broadcast = null;
  }

  /** A viewer writes in the live chat; returns the message id. */
  say(author: StandInAuthor, text: string, options: { publishedAt?: Date } = {}): string {
    return this.#add(
      author,
      'textMessageEvent',
      { textMessageDetails: { messageText: text } },
      text,
      options,
    );
  }

  superChat(author: StandInAuthor, amount: number, currency: string, comment = ''): string {
    const display = `${currency} ${amount.toFixed(2)}`;
    return this.#add(
      author,
      'superChatEvent',
      {
        superChatDetails: {
          amountMicros: micros(amount),
          currency,
          amountDisplayString: display,
          userComment: comment,
          tier: 2,
        },
      },
      `${display} from ${author.displayName}: "${comment}"`,
    );
  }

  superSticker(author: StandInAuthor, amount: number, currency: string): string {
    const display = `${currency} ${amount.toFixed(2)}`;
    return this.#add(
      author,
      'superStickerEvent',
      {
        superStickerDetails: {
          superStickerMetadata: { stickerId: 'stand-in-sticker', altText: 'sticker', language: 'en' },
          amountMicros: micros(amount),
          currency,
          amountDisplayString: display,
          tier: 1,
        },
      },
      `Super Sticker ${display} from ${author.displayName}`,
    );
  }

  /** A new member (newSponsorEvent). */
  sponsor(author: StandInAuthor): string {
    return this.#add(
      { ...author, isChatSponsor: true },
      'newSponsorEvent',
      { newSponsorDetails: { memberLevelName: 'Member', isUpgrade: false } },
      `Welcome to Member, ${author.displayName}!`,
    );
  }

  /** A member shares their membership milestone (memberMilestoneChatEvent). */
  milestone(author: StandInAuthor, memberMonth: number): string {
    return this.#add(
      { ...author, isChatSponsor: true },
      'memberMilestoneChatEvent',
      { memberMilestoneChatDetails: { memberMonth, memberLevelName: 'Member', userComment: '' } },
      `${author.displayName} has been a member for ${memberMonth} months`,
    );
  }

  /** The same message again, on a later page (what a client must not count twice). */
  redeliver(id: string): void {
    const message = this.#log.find((m) => m.resource.id === id);
    if (message) this.#log.push(message);
  }

  /** The next `count` chat reads answer 403 with `reason` (quotaExceeded, rateLimitExceeded…). */
  failNext(count: number, reason = 'quotaExceeded', code = 403): void {
    this.#failures = { reason, code, remaining: count };
  }

  /** Chat reads wait (unanswered) until `release` (a request in flight when the client stops). */
  hold(): void {
    this.#held ??= [];
  }
  release(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const resume of held) resume();
  }

  /** What the bot wrote in the chat, in order. */
  sent(liveChatId: string | null = null): string[] {
    return this.#log
      .filter((m) => m.resource.bot === true && (liveChatId === null || m.liveChatId === liveChatId))
      .map((m) => String((m.resource.snippet as { displayMessage: string }).displayMessage));
  }

  /** Requests to `path` (e.g. 'liveChatMessages'), optionally of one method. */
  requestsTo(path: string, method = 'GET'): StandInRequest[] {
    return this.requests.filter((r) => r.path === path && r.method === method);
  }

  #add(
    author: StandInAuthor,
    type: string,
    details: Record<string, unknown>,
    displayMessage: string,
    options: { publishedAt?: Date; liveChatId?: string; bot?: boolean } = {},
  ): string {
    const liveChatId = options.liveChatId ?? this.#broadcast?.liveChatId;
    if (!liveChatId) throw new Error('the stand-in channel is not live');
    const id = `LCC.${randomBytes(12).toString('base64url')}`;
    const isOwner = author.channelId === this.#options.channelId;
    this.#log.push({
      liveChatId,
      resource: {
        kind: 'youtube#liveChatMessage',
        etag: randomBytes(8).toString('hex'),
        id,
        ...(options.bot ? { bot: true } : {}),
        snippet: {
          type,
          liveChatId,
          authorChannelId: author.channelId,
          publishedAt: (options.publishedAt ?? new Date()).toISOString(),
          hasDisplayContent: true,
          displayMessage,
          ...details,
        },
        authorDetails: {
          channelId: author.channelId,
          channelUrl: `http://www.youtube.com/channel/${author.channelId}`,
          displayName: author.displayName,
          profileImageUrl: 'https://yt3.ggpht.example/stand-in.jpg',
          isVerified: false,
          isChatOwner: isOwner,
          isChatSponsor: author.isChatSponsor ?? false,
          isChatModerator: false,
        },
      },
    });
    return id;
  }

  // ── the API ────────────────────────────────────────────────────────────────────────────

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = request.method ?? 'GET';
    if (url.pathname.startsWith('/stand-in/')) return this.#control(url.pathname, request, response);
    const prefix = '/youtube/v3/';
    if (!url.pathname.startsWith(prefix)) return googleError(response, 404, 'notFound', 'Not Found');
    const path = url.pathname.slice(prefix.length);
    const query = Object.fromEntries(url.searchParams);
    const key = query.key;
    delete query.key;
    this.requests.push({ method, path, query, at: Date.now() });

    const authorization = request.headers.authorization;
    const owner = authorization === `Bearer ${this.#options.oauthToken}`;
    if (authorization !== undefined && !owner) {
      return googleError(response, 401, 'authError', 'Invalid Credentials');
    }
    if (!owner && key !== this.#options.apiKey) {
      return key === undefined
        ? googleError(response, 403, 'forbidden', 'The request is missing a valid API key.')
        : googleError(response, 400, 'keyInvalid', 'API key not valid. Please pass a valid API key.');
    }

    if (path === 'liveChatMessages' && method === 'GET') return this.#listMessages(query, response);
    if (path === 'liveChatMessages' && method === 'POST') {
      if (!owner) return googleError(response, 401, 'required', 'Login Required.');
      return this.#insertMessage(request, response);
    }
    if (path === 'liveBroadcasts' && method === 'GET') {
      if (!owner) return googleError(response, 401, 'required', 'Login Required.');
      const filters = ['broadcastStatus', 'id', 'mine'].filter((name) => name in query);
      if (filters.length !== 1) {
        return googleError(response, 400, 'incompatibleParameters', 'Specify exactly one filter.');
      }
      const active = query.broadcastStatus === 'active' && this.#broadcast;
      return json(response, 200, {
        kind: 'youtube#liveBroadcastListResponse',
        items: active
          ? [{ id: this.#broadcast?.videoId, snippet: { liveChatId: this.#broadcast?.liveChatId } }]
          : [],
      });
    }
    if (path === 'search' && method === 'GET') {
      const live =
        this.#broadcast && query.channelId === this.#options.channelId && query.eventType === 'live';
      return json(response, 200, {
        kind: 'youtube#searchListResponse',
        items: live ? [{ id: { kind: 'youtube#video', videoId: this.#broadcast?.videoId } }] : [],
      });
    }
    if (path === 'videos' && method === 'GET') {
      const ids = (query.id ?? '').split(',');
      const broadcast = this.#broadcast;
      return json(response, 200, {
        kind: 'youtube#videoListResponse',
        items:
          broadcast && ids.includes(broadcast.videoId)
            ? [{ id: broadcast.videoId, liveStreamingDetails: { activeLiveChatId: broadcast.liveChatId } }]
            : [],
      });
    }
    return googleError(response, 404, 'notFound', 'Not Found');
  }

  async #listMessages(query: Record<string, string>, response: ServerResponse): Promise<void> {
    if (this.#held) await new Promise<void>((resume) => this.#held?.push(resume));
    if (this.#failures && this.#failures.remaining > 0) {
      this.#failures.remaining -= 1;
      const { code, reason } = this.#failures;
      return googleError(response, code, reason, `The request cannot be completed (${reason}).`);
    }
    const liveChatId = query.liveChatId ?? '';
    if (this.#endedChats.has(liveChatId)) {
      return googleError(response, 403, 'liveChatEnded', 'The live chat is no longer live.');
    }
    if (liveChatId !== this.#broadcast?.liveChatId) {
      return googleError(
        response,
        404,
        'liveChatNotFound',
        'The live chat that you are trying to retrieve cannot be found.',
      );
    }
    const maxResults = Math.min(this.#options.pageSize, Number(query.maxResults ?? 500) || 500);
    const chat = this.#log.map((m, index) => ({ m, index })).filter(({ m }) => m.liveChatId === liveChatId);
    let from: number;
    if (query.pageToken) {
      const parsed = /^p(\d+)$/.exec(query.pageToken);
      if (!parsed) return googleError(response, 400, 'pageTokenInvalid', 'The page token is not valid.');
      from = Number(parsed[1]);
    } else {
      // No token: the most recent history (the last page's worth of messages).
      from = chat.length > maxResults ? (chat[chat.length - maxResults]?.index ?? 0) : 0;
    }
    const page = chat.filter(({ index }) => index >= from).slice(0, maxResults);
    const next =
      page.length > 0 ? (page[page.length - 1]?.index ?? from) + 1 : Math.max(from, this.#log.length);
    return json(response, 200, {
      kind: 'youtube#liveChatMessageListResponse',
      etag: randomBytes(8).toString('hex'),
      pollingIntervalMillis: this.pollingIntervalMillis,
      pageInfo: { totalResults: page.length, resultsPerPage: page.length },
      nextPageToken: `p${next}`,
      items: page.map(({ m }) => {
        const { bot: _bot, ...resource } = m.resource;
        return resource;
      }),
    });
  }

  async #insertMessage(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    let body: {
      snippet?: { liveChatId?: string; type?: string; textMessageDetails?: { messageText?: string } };
    };
    try {
      body = JSON.parse(raw);
    } catch {
      return googleError(response, 400, 'parseError', 'Parse Error');
    }
    const liveChatId = body.snippet?.liveChatId ?? '';
    const text = body.snippet?.textMessageDetails?.messageText ?? '';
    if (body.snippet?.type !== 'textMessageEvent' || text === '') {
      return googleError(response, 400, 'invalidValue', 'A text message is required.');
    }
    if (text.length > 200)
      return googleError(response, 400, 'messageTextInvalid', 'The message is too long.');
    if (this.#endedChats.has(liveChatId))
      return googleError(response, 403, 'liveChatEnded', 'The live chat is no longer live.');
    if (liveChatId !== this.#broadcast?.liveChatId) {
      return googleError(response, 404, 'liveChatNotFound', 'The live chat cannot be found.');
    }
    const id = this.#add(
      { channelId: this.#options.channelId, displayName: 'Stand-in Channel' },
      'textMessageEvent',
      { textMessageDetails: { messageText: text } },
      text,
      { liveChatId, bot: true },
    );
    json(response, 200, {
      kind: 'youtube#liveChatMessage',
      id,
      snippet: { liveChatId, type: 'textMessageEvent', displayMessage: text },
    });
  }

  // ── control from another process ───────────────────────────────────────────────────────

  /**
   * `POST /stand-in/say {channelId, displayName, text}`, `/stand-in/super-chat {…, amount,
   * currency}`, `/stand-in/sponsor`, `/stand-in/milestone {…, months}`, `/stand-in/fail {count,
   * reason}`, `/stand-in/go-live`, `/stand-in/end`; `GET /stand-in/sent` → what the bot wrote.
   */
  async #control(path: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && path === '/stand-in/sent') {
      return json(response, 200, { sent: this.sent(), liveChatId: this.liveChatId });
    }
    const body = (JSON.parse((await readBody(request)) || '{}') ?? {}) as Record<string, unknown>;
    const author: StandInAuthor = {
      channelId: String(body.channelId ?? ''),
      displayName: String(body.displayName ?? body.channelId ?? ''),
      isChatSponsor: body.isChatSponsor === true,
    };
    const done = (id: unknown = null) => json(response, 200, { id, liveChatId: this.liveChatId });
    switch (path) {
      case '/stand-in/say':
        return done(this.say(author, String(body.text ?? '')));
      case '/stand-in/super-chat':
        return done(this.superChat(author, Number(body.amount), String(body.currency ?? 'USD')));
      case '/stand-in/super-sticker':
        return done(this.superSticker(author, Number(body.amount), String(body.currency ?? 'USD')));
      case '/stand-in/sponsor':
        return done(this.sponsor(author));
      case '/stand-in/milestone':
        return done(this.milestone(author, Number(body.months ?? 1)));
      case '/stand-in/fail':
        this.failNext(Number(body.count ?? 1), String(body.reason ?? 'quotaExceeded'));
        return done();
      case '/stand-in/go-live':
        return done(this.goLive());
      case '/stand-in/end':
        this.endBroadcast();
        return done();
      default:
        return googleError(response, 404, 'notFound', 'Not Found');
    }
  }
}

// Run alone: prints the API base URL (YOUTUBE_API_URL) and the credentials it accepts.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const portIndex = process.argv.indexOf('--port');
  const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : 0;
  const standIn = await YoutubeStandIn.start({ port });
  process.stdout.write(
    `${JSON.stringify({ url: standIn.url, apiKey: standIn.apiKey, oauthToken: standIn.oauthToken, channelId: standIn.channelId, liveChatId: standIn.liveChatId })}\n`,
  );
}
