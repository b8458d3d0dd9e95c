/**
 * What the Twitch bot writes in chat, paced under Twitch's limit for a normal account (20
 * messages per 30 s; going over locks the bot out of chat for 30 minutes). Messages are spaced by
 * at least window / limit (1.5 s) and never more than `limit` fall in one window. The answers that
 * wait meanwhile are batched: one message per outcome ("@a, @b, @c: you're in the raffle…"),
 * each at most `maxLength` characters. A quiet chat gets its answer at once; a burst of joins
 * gets a few long messages.
 */
import type { ChatJoinOutcome } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock, ClockTimer } from '../../clock.js';

/** Twitch's limit for an account that is neither moderator nor broadcaster of the channel. */
export const TWITCH_CHAT_LIMIT = { messages: 20, windowMs: 30_000 };
/** Twitch refuses lines over 500 characters, and tmi.js splits one of exactly 500. */
export const TWITCH_MAX_MESSAGE_LENGTH = 499;
/** Answers waiting beyond this many are not sent (the viewers entered all the same). */
const MAX_WAITING_ANSWERS = 5_000;

export interface ChatSenderOptions {
  clock: Clock;
  log: FastifyBaseLogger;
  /** Writes one line in the channel. */
  send(text: string): Promise<void>;
  /** The answer text for viewers with one outcome. */
  compose(outcome: ChatJoinOutcome, mentions: readonly string[]): string;
  /** Whether the chat connection can take a line now; `resume()` says when it can again. */
  isReady(): boolean;
  limit?: number;
  windowMs?: number;
  maxLength?: number;
}

interface Answer {
  outcome: ChatJoinOutcome;
  mention: string;
}

interface Line {
  text: string;
  resolve(): void;
  reject(error: unknown): void;
}

export class ChatSender {
  readonly #options: ChatSenderOptions;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxLength: number;
  /** Lines asked for as such (the admin's test message): before any answer. */
  #lines: Line[] = [];
  #answers: Answer[] = [];
  /** When the messages of the current window were sent (ms), oldest first. */
  #sentAt: number[] = [];
  #timer: ClockTimer | undefined;
  #sending = false;
  #stopped = false;
  #droppedLogged = false;

  constructor(options: ChatSenderOptions) {
    this.#options = options;
    this.#limit = options.limit ?? TWITCH_CHAT_LIMIT.messages;
    this.#windowMs = options.windowMs ?? TWITCH_CHAT_LIMIT.windowMs;
    this.#maxLength = options.maxLength ?? TWITCH_MAX_MESSAGE_LENGTH;
  }

  /** Answers a viewer (mentioned as `mention`, e.g. "@ana"), now or batched with others. */
  answer(outcome: ChatJoinOutcome, mention: string): void {
    if (this.#stopped) return;
    if (this.#answers.length >= MAX_WAITING_ANSWERS) {
      if (!this.#droppedLogged)
        this.#options.log.warn('too many Twitch chat answers waiting: some are not sent');
      this.#droppedLogged = true;
      return;
    }
    this.#answers.push({ outcome, mention });
    this.#schedule();
  }

  /** Writes `text` as its own message, before waiting answers; resolves once it is sent. */
  line(text: string): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('the Twitch chat is stopped'));
    return new Promise((resolve, reject) => {
      this.#lines.push({ text: text.slice(0, this.#maxLength), resolve, reject });
      this.#schedule();
    });
  }

  /** The connection is back: send what waits. */
  resume(): void {
    this.#schedule();
  }

  /** Messages waiting (tests, logs). */
  waiting(): number {
    return this.#lines.length + this.#answers.length;
  }

  /** Takes messages again after `stop` (this instance leads again, issue 15). */
  restart(): void {
    this.#stopped = false;
  }

  stop(): void {
    this.#stopped = true;
    this.#options.clock.clear(this.#timer);
    this.#timer = undefined;
    for (const line of this.#lines) line.reject(new Error('the Twitch chat stopped'));
    this.#lines = [];
    this.#answers = [];
  }

  #schedule(): void {
    if (this.#stopped || this.#sending || this.#timer !== undefined || this.waiting() === 0) return;
    if (!this.#options.isReady()) return;
    const wait = this.#waitMs(this.#options.clock.now().getTime());
    if (wait <= 0) {
      void this.#sendNext();
      return;
    }
    this.#timer = this.#options.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, wait);
  }

  /** How long until the next message keeps both the spacing and the window's count. */
  #waitMs(now: number): number {
    this.#sentAt = this.#sentAt.filter((at) => at > now - this.#windowMs);
    const last = this.#sentAt.at(-1);
    let wait = last === undefined ? 0 : last + this.#windowMs / this.#limit - now;
    const oldest = this.#sentAt[0];
    if (this.#sentAt.length >= this.#limit && oldest !== undefined) {
      wait = Math.max(wait, oldest + this.#windowMs - now + 1);
    }
    return wait;
  }

  async #sendNext(): Promise<void> {
    this.#sending = true;
    const line = this.#lines.shift();
    const text = line?.text ?? this.#takeBatch();
    this.#sentAt.push(this.#options.clock.now().getTime());
    try {
      await this.#options.send(text);
      line?.resolve();
    } catch (error) {
      // The connection dropped under the message: it is not sent again later (stale by then).
      line?.reject(error);
      this.#options.log.warn({ reason: String(error) }, 'a Twitch chat message could not be sent');
    } finally {
      this.#sending = false;
      this.#schedule();
    }
  }

  /** The oldest answer's outcome, with as many viewers of that outcome as fit in one message. */
  #takeBatch(): string {
    const outcome = (this.#answers[0] as Answer).outcome;
    const mentions: string[] = [];
    const rest: Answer[] = [];
    let full = false;
    for (const answer of this.#answers) {
      if (full || answer.outcome !== outcome) {
        rest.push(answer);
        continue;
      }
      const longer = this.#options.compose(outcome, [...mentions, answer.mention]);
      if (mentions.length > 0 && longer.length > this.#maxLength) {
        full = true;
        rest.push(answer);
        continue;
      }
      mentions.push(answer.mention);
    }
    this.#answers = rest;
    return this.#options.compose(outcome, mentions);
  }
}
