/**
 * The YouTube live chat, read by polling `liveChatMessages.list` (docs/integrations.md
 * "YouTube"): find the live chat (configured, or the channel's active broadcast), then read it
 * page after page as fast as YouTube's `pollingIntervalMillis` allows, handing what viewers do to
 * the integrations hub.
 *
 * One step at a time on the clock: each step (find the chat, or read one page) schedules the next
 * one, so a failure only changes the delay (backoff) and `stop()` has one timer and one request
 * to cancel. Nothing here throws out of a step: the platform misbehaving is a state, not a crash.
 *
 * Over 400 lines on purpose: one polling loop whose steps share its timer, page token and state.
 */
import { type BackoffSchedule, backoffDelay, type ChatJoinOutcome } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock, ClockTimer } from '../../clock.js';
import type { ChatAnnouncement } from '../announcement-texts.js';
import type { IntegrationsService, Viewer } from '../integrations.service.js';
import { failureKind, type LiveChatMessage, type YoutubeApi } from './youtube-api.js';

/** YouTube asks for a polling interval; never poll faster than this whatever it says. */
export const MIN_POLL_MS = 1_000;
/** When an answer has no interval (not seen from YouTube, but possible from a stand-in). */
const DEFAULT_POLL_MS = 5_000;
/** Network or server errors: 1 s, 2 s, 4 s … up to a minute. */
const TRANSIENT_BACKOFF: BackoffSchedule = { initialMs: 1_000, maxMs: 60_000 };
/** Quota, rate limit or refused credentials: they do not heal in seconds; 15 s … up to 10 min. */
const SLOW_BACKOFF: BackoffSchedule = { initialMs: 15_000, maxMs: 10 * 60_000 };
/** Not live: look again every minute (liveBroadcasts costs 1 quota unit)… */
export const NOT_LIVE_RETRY_MS = 60_000;
/** …or every 5 minutes when looking costs a 100-unit `search` (an API key only). */
export const NOT_LIVE_SEARCH_RETRY_MS = 5 * 60_000;
/** A chat that ended: look for the next broadcast right away (a short pause against loops). */
const CHAT_GONE_RETRY_MS = 1_000;
/** YouTube refuses chat messages longer than this. */
const MAX_MESSAGE_LENGTH = 200;
/** Viewers waiting for an answer, per outcome; beyond this they entered but are not mentioned. */
const MAX_PENDING_MENTIONS = 500;
/** Announcements waiting for their turn; more would be stale by the time they are posted. */
const MAX_PENDING_ANNOUNCEMENTS = 10;
/** Message ids remembered against a delivery seen twice. */
const SEEN_LIMIT = 20_000;

export interface YoutubeChatOptions {
  api: YoutubeApi;
  hub: IntegrationsService;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The configured live chat (read first), or null to find the active broadcast's. */
  liveChatId: string | null;
  /** The channel whose active broadcast is looked up with an API key. */
  channelId: string | null;
}

export class YoutubeChat {
  readonly #api: YoutubeApi;
  readonly #hub: IntegrationsService;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #channelId: string | null;

  #liveChatId: string | null;
  #pageToken: string | null = null;
  /** When the current chat was first read: older join commands on its first page are history. */
  #connectedAt: Date | null = null;
  #firstPage = true;
  #failures = 0;
  /** Reads in a row whose page could not be recorded to the end. */
  #unrecorded = 0;
  /** Handled message ids (SEEN_LIMIT): a delivery seen twice is counted once. */
  readonly #seen = new LRUCache<string, true>({ max: SEEN_LIMIT });
  /** Last sponsor badge seen per author channel in this process (membership end, see #sponsorBadge). */
  readonly #sponsors = new Map<string, boolean>();
  readonly #pending = new Map<ChatJoinOutcome, string[]>();
  /** Announcements' texts, posted before the answers. */
  #announcements: string[] = [];

  #stopped = true;
  #timer: ClockTimer | undefined;
  #abort: AbortController | null = null;
  #step: Promise<void> | null = null;
  #delay: number | null = null;
  #onWaiting: ((delay: number) => void)[] = [];
  /** Steps begun (what a test counts against the clock). */
  steps = 0;

  constructor(options: YoutubeChatOptions) {
    this.#api = options.api;
    this.#hub = options.hub;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#channelId = options.channelId;
    this.#liveChatId = options.liveChatId;
  }

  /** The live chat being read (null while looking for one). */
  get liveChatId(): string | null {
    return this.#liveChatId;
  }

  /** Registers with the hub and starts reading in the background (never waits, never throws). */
  start(): void {
    this.#stopped = false;
    // Said while this instance did not read the chat: not for now.
    this.#announcements = [];
    this.#register();
    this.#run();
  }

  /**
   * Queues an announcement for the chat being read: posted after the next page read, before the
   * answers. Skipped when the bot cannot write (an API key only) or the chat is not being read
   * now (not live, failing): an announcement is news of the moment.
   */
  announce(announcement: ChatAnnouncement): void {
    const reading = this.#liveChatId !== null && this.#hub.status('youtube').state === 'connected';
    if (this.#stopped || !this.#api.canWrite || !reading) {
      this.#log.debug(
        { announcement: announcement.kind },
        'youtube chat cannot post now: announcement skipped',
      );
      return;
    }
    if (this.#announcements.length >= MAX_PENDING_ANNOUNCEMENTS) return;
    this.#announcements.push(this.#hub.announcementText(announcement, { maxLength: MAX_MESSAGE_LENGTH }));
  }

  /** Cancels the timer and the request in flight, and waits for the step under way to end. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clear(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    await this.#step;
  }

  /** Resolves with the delay once the loop waits for its next step (tests drive a ManualClock). */
  whenWaiting(): Promise<number> {
    if (this.#delay !== null) return Promise.resolve(this.#delay);
    return new Promise((resolve) => this.#onWaiting.push(resolve));
  }

  #run(): void {
    if (this.#stopped) return;
    this.#timer = undefined;
    this.#delay = null;
    this.steps += 1;
    this.#step = this.#runStep()
      .catch((error: unknown) => {
        // #runStep handles its own failures; this is a bug's last line of defence.
        this.#log.error({ err: error }, 'youtube chat step failed');
        return TRANSIENT_BACKOFF.maxMs;
      })
      .then((delay) => this.#schedule(delay));
  }

  #schedule(delay: number): void {
    this.#abort = null;
    if (this.#stopped) return;
    this.#delay = delay;
    this.#timer = this.#clock.setTimeout(() => this.#run(), delay);
    for (const resolve of this.#onWaiting.splice(0)) resolve(delay);
  }

  /** One step: find the chat or read a page. Returns the delay before the next one. */
  async #runStep(): Promise<number> {
    const abort = new AbortController();
    this.#abort = abort;
    try {
      if (this.#liveChatId === null) return await this.#findChat(abort.signal);
      return await this.#readPage(this.#liveChatId, abort.signal);
    } catch (error) {
      if (this.#stopped) return 0;
      return this.#failed(error);
    }
  }

  async #findChat(signal: AbortSignal): Promise<number> {
    const liveChatId = await this.#api.activeLiveChatId(this.#channelId, signal);
    if (liveChatId === null) {
      this.#failures = 0;
      this.#hub.setState('youtube', 'error', 'no active broadcast');
      return this.#api.isOwner ? NOT_LIVE_RETRY_MS : NOT_LIVE_SEARCH_RETRY_MS;
    }
    this.#useChat(liveChatId);
    return 0;
  }

  #useChat(liveChatId: string): void {
    this.#log.info({ liveChatId }, 'youtube live chat found');
    this.#liveChatId = liveChatId;
    this.#announcements = [];
    this.#pageToken = null;
    this.#firstPage = true;
    this.#connectedAt = null;
    this.#register();
  }

  async #readPage(liveChatId: string, signal: AbortSignal): Promise<number> {
    this.#connectedAt ??= this.#clock.now();
    const page = await this.#api.chatPage(liveChatId, this.#pageToken, signal);
    if (this.#failures > 0) this.#log.info({ after: this.#failures }, 'youtube chat reachable again');
    this.#failures = 0;
    this.#hub.setState('youtube', 'connected');
    if (page.unreadable > 0) this.#log.warn({ count: page.unreadable }, 'youtube chat items not understood');

    const pollMs = Math.max(MIN_POLL_MS, page.pollingIntervalMillis ?? DEFAULT_POLL_MS);
    for (const message of page.messages) {
      // Stopped: the rest of the page is read again if this instance reads the chat again.
      if (this.#stopped) return pollMs;
      if (this.#seen.has(message.id)) continue;
      try {
        await this.#handle(message, this.#firstPage);
      } catch (error) {
        return this.#notRecorded(message.id, error, pollMs);
      }
      this.#seen.set(message.id, true);
    }
    this.#unrecorded = 0;
    this.#firstPage = false;
    this.#pageToken = page.nextPageToken ?? this.#pageToken;
    await this.#speak(liveChatId);
    return pollMs;
  }

  /**
   * The database refused what a message means (a hiccup): the page is read again from where it
   * stood, after a backoff, so the message and every later one are handled in order once it is
   * recorded. Messages handled before it are remembered and skipped; nothing is ever dropped
   * (docs/integrations.md "YouTube").
   */
  #notRecorded(messageId: string, error: unknown, pollMs: number): number {
    this.#unrecorded += 1;
    const delay = Math.max(pollMs, backoffDelay(TRANSIENT_BACKOFF, this.#unrecorded - 1));
    this.#log.error(
      { err: error, messageId, failures: this.#unrecorded },
      'youtube chat message not recorded; read again',
    );
    this.#hub.setState(
      'youtube',
      'error',
      `a chat message was not recorded (database); read again in ${Math.ceil(delay / 1000)} s`,
    );
    return delay;
  }

  async #handle(message: LiveChatMessage, history: boolean): Promise<void> {
    const { snippet, authorDetails: author } = message;
    const viewer: Viewer = {
      platform: 'youtube',
      platformUserId: author.channelId,
      displayName: author.displayName,
    };
    switch (snippet.type) {
      case 'textMessageEvent': {
        await this.#sponsorBadge(viewer, author.isChatSponsor);
        const text = snippet.textMessageDetails?.messageText ?? snippet.displayMessage ?? '';
        if (!this.#hub.isJoinCommand(text)) return;
        // The first page is the chat's recent past: a join typed before we were reading is not answered.
        if (history && this.#isBeforeConnection(snippet.publishedAt)) return;
        const { outcome, answer } = await this.#hub.join(viewer);
        if (answer && this.#api.canWrite) this.#queueAnswer(outcome, mention(author.displayName));
        return;
      }
      case 'superChatEvent':
      case 'superStickerEvent': {
        const details = snippet.superChatDetails ?? snippet.superStickerDetails;
        if (!details) return;
        await this.#hub.donation(viewer, {
          amount: details.amountMicros / 1e6,
          currency: details.currency,
          sourceId: `youtube:${message.id}`,
        });
        return;
      }
      case 'newSponsorEvent':
      // A membership given by another viewer: the recipient is a member like any other.
      case 'giftMembershipReceivedEvent':
        await this.#hub.subscribed(viewer, 0);
        this.#sponsors.set(author.channelId, true);
        return;
      case 'memberMilestoneChatEvent':
        await this.#hub.subscribed(viewer, snippet.memberMilestoneChatDetails?.memberMonth ?? 0);
        this.#sponsors.set(author.channelId, true);
        return;
      default:
        return;
    }
  }

  /**
   * YouTube never says a membership ended, but every chat line says whether its author is a
   * member now (`isChatSponsor`). A member seen is an active subscription (the tier of an earlier
   * sponsor or milestone event is kept); a member seen earlier in this process who writes without
   * the badge has left. Only changes reach the hub: one write per viewer, not per line.
   */
  async #sponsorBadge(viewer: Viewer, isSponsor: boolean | undefined): Promise<void> {
    if (isSponsor === undefined) return;
    const before = this.#sponsors.get(viewer.platformUserId);
    if (before === isSponsor) return;
    if (isSponsor) await this.#hub.subscribed(viewer, 0);
    else if (before === true) await this.#hub.unsubscribed(viewer);
    // Only once written: a refused write is tried again when the message is read again.
    this.#sponsors.set(viewer.platformUserId, isSponsor);
  }

  #isBeforeConnection(publishedAt: string | undefined): boolean {
    if (!publishedAt || this.#connectedAt === null) return true;
    const at = Date.parse(publishedAt);
    return Number.isNaN(at) || at < this.#connectedAt.getTime();
  }

  #queueAnswer(outcome: ChatJoinOutcome, name: string): void {
    const list = this.#pending.get(outcome) ?? [];
    if (list.length < MAX_PENDING_MENTIONS) list.push(name);
    this.#pending.set(outcome, list);
  }

  /**
   * At most one chat message per page read: the oldest announcement waiting, else the viewers of
   * one outcome that fit in one message.
   */
  async #speak(liveChatId: string): Promise<void> {
    const announcement = this.#announcements.shift();
    if (announcement === undefined) return this.#answer(liveChatId);
    try {
      await this.#api.sendMessage(liveChatId, announcement, this.#abort?.signal);
    } catch (error) {
      if (this.#stopped) return;
      this.#log.warn({ err: describe(error) }, 'youtube chat announcement not sent');
    }
  }

  async #answer(liveChatId: string): Promise<void> {
    const [outcome, names] = [...this.#pending].find(([, list]) => list.length > 0) ?? [];
    if (!outcome || !names) return;
    let count = 1;
    while (
      count < names.length &&
      this.#hub.reply(outcome, names.slice(0, count + 1)).length <= MAX_MESSAGE_LENGTH
    ) {
      count += 1;
    }
    const batch = names.splice(0, count);
    if (names.length === 0) this.#pending.delete(outcome);
    try {
      await this.#api.sendMessage(liveChatId, this.#hub.reply(outcome, batch), this.#abort?.signal);
    } catch (error) {
      if (this.#stopped) return;
      // Answers are a courtesy: the viewers entered anyway; a failed one is not retried.
      this.#log.warn({ err: describe(error), viewers: batch.length }, 'youtube chat answer not sent');
    }
  }

  async #send(text: string): Promise<void> {
    if (this.#liveChatId === null) throw new Error('no live chat');
    await this.#api.sendMessage(this.#liveChatId, text.slice(0, MAX_MESSAGE_LENGTH));
  }

  #failed(error: unknown): number {
    const kind = failureKind(error);
    const detail = describe(error);
    this.#failures += 1;
    this.#log.warn({ err: detail, kind, failures: this.#failures }, 'youtube chat call failed');
    if (kind === 'chat_gone') {
      this.#failures = 0;
      this.#hub.setState('youtube', 'error', `the live chat has ended (${detail})`);
      if (this.#canFindChat()) {
        this.#liveChatId = null;
        return CHAT_GONE_RETRY_MS;
      }
      // A configured chat and no way to look for another: try it again now and then.
      return NOT_LIVE_RETRY_MS;
    }
    this.#hub.setState('youtube', 'error', detail);
    return backoffDelay(kind === 'transient' ? TRANSIENT_BACKOFF : SLOW_BACKOFF, this.#failures - 1);
  }

  /** Tells the hub what is read (state: connecting); the test message needs the owner's token. */
  #register(): void {
    this.#hub.register({
      id: 'youtube',
      target: this.#target(),
      ...(this.#api.canWrite
        ? {
            sendTestMessage: (text: string) => this.#send(text),
            announce: (announcement: ChatAnnouncement) => this.announce(announcement),
          }
        : {}),
    });
  }

  /** Whether another chat can be looked up: the owner's token, or a channel to search. */
  #canFindChat(): boolean {
    return this.#api.isOwner || this.#channelId !== null;
  }

  #target(): string {
    if (this.#liveChatId !== null) return `live chat ${this.#liveChatId}`;
    if (this.#channelId !== null) return `channel ${this.#channelId}`;
    return "the channel's active broadcast";
  }
}

/** "@Name" (YouTube handles already start with @). */
function mention(displayName: string): string {
  return displayName.startsWith('@') ? displayName : `@${displayName}`;
}

/** An error as a short line with no URL (an API key may sit in a URL's query). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'ZodError') return 'an answer of an unexpected shape';
    return error.message.replace(/https?:\/\/\S+/g, '<url>');
  }
  return String(error);
}
