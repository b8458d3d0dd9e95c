import type { ChatJoinOutcome } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { quietLogger } from '../../test/quiet-logger.js';
import { chatReply } from '../chat-replies.js';
import { ChatSender } from './chat-sender.js';

/** A sender on a manual clock, writing into `sent` with the time of each line. */
function harness(options: { ready?: () => boolean; fail?: boolean } = {}) {
  const clock = new ManualClock(new Date('2026-03-01T20:00:00Z'));
  const sent: { text: string; at: number }[] = [];
  const sender = new ChatSender({
    clock,
    log: quietLogger(),
    send: async (text) => {
      if (options.fail) throw new Error('Not connected to server.');
      sent.push({ text, at: clock.now().getTime() });
    },
    compose: (outcome: ChatJoinOutcome, mentions) => chatReply('en', outcome, mentions),
    isReady: options.ready ?? (() => true),
  });
  /** Lets the sender's promises settle, then moves the clock. */
  const advance = async (ms: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(ms);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { clock, sent, sender, advance };
}

describe('the Twitch chat sender', () => {
  it('answers a lone viewer at once, then batches those who wait, one message per outcome', async () => {
    const { sent, sender, advance } = harness();
    sender.answer('entered', '@ana');
    await advance(0);
    expect(sent.map((line) => line.text)).toEqual(["@ana: you're in the raffle. Good luck!"]);
    sender.answer('entered', '@bo');
    sender.answer('no_raffle', '@cy');
    sender.answer('entered', '@dee');
    await advance(1_499);
    expect(sent).toHaveLength(1);
    await advance(1);
    expect(sent.map((line) => line.text)).toEqual([
      "@ana: you're in the raffle. Good luck!",
      "@bo, @dee: you're in the raffle. Good luck!",
    ]);
    await advance(1_500);
    expect(sent.at(-1)?.text).toBe('@cy: no raffle is open right now.');
  });

  it('never sends more than 20 messages in 30 s, and keeps each under 500 characters', async () => {
    const { sent, sender, advance } = harness();
    for (let i = 0; i < 2_000; i += 1) sender.answer('entered', `@viewer_number_${i}`);
    for (let step = 0; step < 1_000 && sender.waiting() > 0; step += 1) await advance(500);
    const mentions = sent.flatMap((line) => (line.text.split(': ')[0] as string).split(', '));
    expect(new Set(mentions).size).toBe(2_000);
    expect(mentions).toHaveLength(2_000);
    for (const line of sent) {
      expect(line.text.length).toBeLessThanOrEqual(499);
      expect(
        sent.filter((other) => other.at >= line.at && other.at < line.at + 30_000).length,
      ).toBeLessThanOrEqual(20);
    }
  });

  it('sends a line of its own before waiting answers, and waits while the chat is down', async () => {
    let ready = false;
    const { sent, sender, advance } = harness({ ready: () => ready });
    sender.answer('entered', '@ana');
    const line = sender.line('Telerace test message');
    await advance(10_000);
    expect(sent).toHaveLength(0);
    ready = true;
    sender.resume();
    await line;
    await advance(1_500);
    expect(sent.map((entry) => entry.text)).toEqual([
      'Telerace test message',
      "@ana: you're in the raffle. Good luck!",
    ]);
  });

  it('reports a line the connection could not take, and refuses everything once stopped', async () => {
    const failing = harness({ fail: true });
    await expect(failing.sender.line('hello')).rejects.toThrow('Not connected');
    const { sender, sent, advance } = harness({ ready: () => false });
    const waiting = sender.line('never sent');
    sender.stop();
    await expect(waiting).rejects.toThrow('stopped');
    await expect(sender.line('later')).rejects.toThrow('stopped');
    sender.answer('entered', '@ana');
    await advance(60_000);
    expect(sent).toHaveLength(0);
  });
});
