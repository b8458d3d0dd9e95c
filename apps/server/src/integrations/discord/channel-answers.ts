/**
 * The bot's answers to the text join command in the channel, batched: Discord lets a bot post
 * about 5 messages per 5 s in a channel, and a stream's audience types the command together. The
 * answers of a short window go out as one message per outcome ("<@1>, <@2>: you're in…"), split
 * at Discord's 2,000-character limit.
 */
import type { ChatJoinOutcome } from '@telerace/protocol';

/** How long answers gather before they are sent. */
export const ANSWER_WINDOW_MS = 400;
/** Discord's limit on a message's content. */
export const MESSAGE_LIMIT = 2_000;

export class ChannelAnswers {
  readonly #pending = new Map<ChatJoinOutcome, string[]>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(
    private readonly compose: (outcome: ChatJoinOutcome, mentions: readonly string[]) => string,
    /** Posts a message; logs its own failures (a failed batch is not retried). */
    private readonly send: (text: string) => Promise<void>,
    private readonly windowMs = ANSWER_WINDOW_MS,
  ) {}

  add(outcome: ChatJoinOutcome, mention: string): void {
    if (this.#stopped) return;
    const mentions = this.#pending.get(outcome) ?? [];
    mentions.push(mention);
    this.#pending.set(outcome, mentions);
    // `send` logs its failures; the catch only keeps a surprise from becoming an unhandled rejection.
    this.#timer ??= setTimeout(() => void this.#flush().catch(() => {}), this.windowMs);
  }

  /** Drops what was not sent (the bot is stopping). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending.clear();
  }

  async #flush(): Promise<void> {
    this.#timer = null;
    const batches = [...this.#pending.entries()];
    this.#pending.clear();
    for (const [outcome, mentions] of batches) {
      for (const text of this.#messages(outcome, mentions)) {
        if (this.#stopped) return;
        await this.send(text);
      }
    }
  }

  /** As few messages as fit the limit, each naming its viewers. */
  #messages(outcome: ChatJoinOutcome, mentions: readonly string[]): string[] {
    const messages: string[] = [];
    let chunk: string[] = [];
    for (const mention of mentions) {
      if (chunk.length > 0 && this.compose(outcome, [...chunk, mention]).length > MESSAGE_LIMIT) {
        messages.push(this.compose(outcome, chunk));
        chunk = [];
      }
      chunk.push(mention);
    }
    if (chunk.length > 0) messages.push(this.compose(outcome, chunk));
    return messages;
  }
}
