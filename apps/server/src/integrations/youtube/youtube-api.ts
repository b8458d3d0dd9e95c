/**
 * The few YouTube Data API v3 calls the live chat integration makes, with plain `fetch` against
 * the configured base URL (YOUTUBE_API_URL: Google's, or a local stand-in in tests).
 *
 * Credentials: the channel owner's OAuth token (`Authorization: Bearer`) when there is one — it
 * can also write in the chat — else the API key (`key=` in the query). Neither ever reaches an
 * error message or the log: errors carry the path and Google's reason, never the URL.
 */
import { z } from 'zod';

export interface YoutubeCredentials {
  apiKey: string | null;
  oauthToken: string | null;
}

/** A refusal or failure of the API, classified by what the chat loop does about it. */
export class YoutubeApiError extends Error {
  constructor(
    /** HTTP status; 0 for a network failure. */
    readonly status: number,
    /** Google's `errors[0].reason` (quotaExceeded, liveChatEnded, …) or the network error code. */
    readonly reason: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'YoutubeApiError';
  }
}

/** What the chat loop does about a failed call. */
export type FailureKind = 'quota' | 'chat_gone' | 'credentials' | 'transient';

const QUOTA_REASONS = new Set([
  'quotaExceeded',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'dailyLimitExceeded',
]);
const CHAT_GONE_REASONS = new Set(['liveChatEnded', 'liveChatNotFound', 'liveChatDisabled']);
const CREDENTIAL_REASONS = new Set(['keyInvalid', 'authError', 'forbidden', 'insufficientPermissions']);

export function failureKind(error: unknown): FailureKind {
  if (!(error instanceof YoutubeApiError)) return 'transient';
  if (error.status === 429 || (error.reason !== null && QUOTA_REASONS.has(error.reason))) return 'quota';
  if (error.reason !== null && CHAT_GONE_REASONS.has(error.reason)) return 'chat_gone';
  if (error.status === 404) return 'chat_gone';
  if (error.status === 401 || (error.reason !== null && CREDENTIAL_REASONS.has(error.reason))) {
    return 'credentials';
  }
  return 'transient';
}

// ── what the API answers (only the fields read here) ───────────────────────────────────────

const Micros = z.union([z.string(), z.number()]).transform((value) => Number(value));

const Amount = z.object({ amountMicros: Micros, currency: z.string().min(3).max(3) });

export const LiveChatMessage = z.object({
  id: z.string().min(1),
  snippet: z.object({
    type: z.string(),
    publishedAt: z.string().optional(),
    displayMessage: z.string().optional(),
    textMessageDetails: z.object({ messageText: z.string() }).optional(),
    superChatDetails: Amount.optional(),
    superStickerDetails: Amount.optional(),
    memberMilestoneChatDetails: z.object({ memberMonth: z.number().int().nonnegative() }).optional(),
  }),
  authorDetails: z.object({
    channelId: z.string().min(1),
    displayName: z.string(),
    isChatSponsor: z.boolean().optional(),
    isChatOwner: z.boolean().optional(),
  }),
});
export type LiveChatMessage = z.infer<typeof LiveChatMessage>;

const LiveChatMessagePage = z.object({
  nextPageToken: z.string().optional(),
  pollingIntervalMillis: z.number().int().nonnegative().optional(),
  offlineAt: z.string().optional(),
  // Parsed one by one below: one message of an unknown shape must not hide the others.
  items: z.array(z.unknown()).default([]),
});

export interface ChatPage {
  messages: LiveChatMessage[];
  /** Items that were not messages of a known shape (counted for the log). */
  unreadable: number;
  nextPageToken: string | null;
  pollingIntervalMillis: number | null;
}

const LiveBroadcasts = z.object({
  items: z
    .array(z.object({ id: z.string(), snippet: z.object({ liveChatId: z.string().optional() }).optional() }))
    .default([]),
});
const SearchResults = z.object({
  items: z.array(z.object({ id: z.object({ videoId: z.string().optional() }) })).default([]),
});
const Videos = z.object({
  items: z
    .array(
      z.object({
        id: z.string(),
        liveStreamingDetails: z.object({ activeLiveChatId: z.string().optional() }).optional(),
      }),
    )
    .default([]),
});

const ErrorBody = z.object({
  error: z.object({
    message: z.string().optional(),
    errors: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
});

// ── the client ─────────────────────────────────────────────────────────────────────────────

/** No call waits longer than this (a stalled connection must not stall the chat loop forever). */
const REQUEST_TIMEOUT_MS = 20_000;

export class YoutubeApi {
  readonly #base: string;
  readonly #credentials: YoutubeCredentials;

  constructor(deps: { apiUrl: string; credentials: YoutubeCredentials }) {
    this.#base = deps.apiUrl.replace(/\/+$/, '');
    this.#credentials = deps.credentials;
  }

  /** Whether the bot may write in the chat (only the channel owner's token can). */
  get canWrite(): boolean {
    return this.#credentials.oauthToken !== null;
  }

  /** Whether the active broadcast can be read as "mine" (an OAuth token). */
  get isOwner(): boolean {
    return this.#credentials.oauthToken !== null;
  }

  async chatPage(liveChatId: string, pageToken: string | null, signal: AbortSignal): Promise<ChatPage> {
    const body = await this.#call(
      'liveChatMessages',
      {
        liveChatId,
        part: 'snippet,authorDetails',
        maxResults: '2000',
        ...(pageToken ? { pageToken } : {}),
      },
      signal,
    );
    const page = LiveChatMessagePage.parse(body);
    const messages: LiveChatMessage[] = [];
    let unreadable = 0;
    for (const item of page.items) {
      const parsed = LiveChatMessage.safeParse(item);
      if (parsed.success) messages.push(parsed.data);
      else unreadable += 1;
    }
    return {
      messages,
      unreadable,
      nextPageToken: page.nextPageToken ?? null,
      pollingIntervalMillis: page.pollingIntervalMillis ?? null,
    };
  }

  /**
   * The live chat of the channel's active broadcast, or null when it is not live. With the
   * owner's token: `liveBroadcasts` (1 quota unit; `broadcastStatus` already means "mine" and the
   * API refuses both filters together). With a key: `search` (100 units) then `videos`.
   */
  async activeLiveChatId(channelId: string | null, signal: AbortSignal): Promise<string | null> {
    if (this.isOwner) {
      const broadcasts = LiveBroadcasts.parse(
        await this.#call(
          'liveBroadcasts',
          { part: 'snippet', broadcastStatus: 'active', broadcastType: 'all' },
          signal,
        ),
      );
      return broadcasts.items.find((item) => item.snippet?.liveChatId)?.snippet?.liveChatId ?? null;
    }
    if (channelId === null) return null;
    const search = SearchResults.parse(
      await this.#call('search', { part: 'id', channelId, eventType: 'live', type: 'video' }, signal),
    );
    const videoIds = search.items.flatMap((item) => (item.id.videoId ? [item.id.videoId] : []));
    if (videoIds.length === 0) return null;
    const videos = Videos.parse(
      await this.#call('videos', { part: 'liveStreamingDetails', id: videoIds.join(',') }, signal),
    );
    return (
      videos.items.find((v) => v.liveStreamingDetails?.activeLiveChatId)?.liveStreamingDetails
        ?.activeLiveChatId ?? null
    );
  }

  /** Writes `text` in the chat as the channel owner (liveChatMessages.insert). */
  async sendMessage(liveChatId: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.#call('liveChatMessages', { part: 'snippet' }, signal, {
      snippet: { liveChatId, type: 'textMessageEvent', textMessageDetails: { messageText: text } },
    });
  }

  async #call(
    path: string,
    query: Record<string, string>,
    signal: AbortSignal | undefined,
    body?: unknown,
  ): Promise<unknown> {
    const url = new URL(`${this.#base}/${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#credentials.oauthToken !== null) {
      headers.authorization = `Bearer ${this.#credentials.oauthToken}`;
    } else if (this.#credentials.apiKey !== null) {
      url.searchParams.set('key', this.#credentials.apiKey);
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      // Only the cause's code ("ECONNREFUSED"): the message of some errors quotes the URL.
      const code = networkCode(error);
      throw new YoutubeApiError(0, code, `${path}: network error (${code})`);
    }
    const text = await response.text();
    if (!response.ok) {
      const parsed = ErrorBody.safeParse(safeJson(text));
      const reason = parsed.success ? (parsed.data.error.errors?.[0]?.reason ?? null) : null;
      throw new YoutubeApiError(
        response.status,
        reason,
        `${path}: HTTP ${response.status}${reason ? ` ${reason}` : ''}`,
      );
    }
    if (text === '') return {};
    const json = safeJson(text);
    if (json === undefined)
      throw new YoutubeApiError(response.status, null, `${path}: the answer is not JSON`);
    return json;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; name?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if ((error as { name?: unknown } | null)?.name === 'TimeoutError') return 'timeout';
  if (typeof cause?.name === 'string') return cause.name;
  return 'fetch failed';
}
