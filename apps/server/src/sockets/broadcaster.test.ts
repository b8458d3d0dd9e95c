import { describe, expect, it } from 'vitest';
import { Broadcaster, type BroadcastTarget } from './broadcaster.js';
import type { SerializedMessage } from './message-guard.js';

class Target implements BroadcastTarget {
  readonly received: string[] = [];
  sendSerialized(message: SerializedMessage): void {
    this.received.push(message.utf8.toString('utf8'));
  }
}

/** Turns run only when the test says so. */
function manualTurns() {
  const queued: (() => void)[] = [];
  return {
    nextTurn: (run: () => void) => queued.push(run),
    runOne: () => queued.shift()?.(),
    runAll: () => {
      while (queued.length > 0) queued.shift()?.();
    },
    get pending() {
      return queued.length;
    },
  };
}

const payload = (n: number) => JSON.stringify({ type: 'state', n });

describe('Broadcaster', () => {
  it('reaches every target, a chunk per turn, the first chunk at once', () => {
    const targets = Array.from({ length: 7 }, () => new Target());
    const turns = manualTurns();
    const broadcaster = new Broadcaster(() => targets, 3, turns.nextTurn);
    broadcaster.send('state', { type: 'state', n: 1 });
    expect(targets.map((t) => t.received.length)).toEqual([1, 1, 1, 0, 0, 0, 0]);
    turns.runOne();
    expect(targets.map((t) => t.received.length)).toEqual([1, 1, 1, 1, 1, 1, 0]);
    turns.runOne();
    expect(targets.every((t) => t.received.length === 1)).toBe(true);
    expect(broadcaster.busy).toBe(false);
    expect(turns.pending).toBe(0);
  });

  it('a waiting message of a kind is replaced by a newer one; other kinds keep their turn', () => {
    const targets = Array.from({ length: 4 }, () => new Target());
    const turns = manualTurns();
    const broadcaster = new Broadcaster(() => targets, 2, turns.nextTurn);
    broadcaster.send('state', { type: 'state', n: 1 });
    broadcaster.send('state', { type: 'state', n: 2 });
    broadcaster.send('board', { type: 'board', n: 1 });
    broadcaster.send('state', { type: 'state', n: 3 });
    turns.runAll();
    for (const target of targets) {
      expect(target.received).toEqual([payload(1), JSON.stringify({ type: 'board', n: 1 }), payload(3)]);
    }
  });

  it('serializes each message once and sends the same text to everyone', () => {
    const targets = [new Target(), new Target()];
    new Broadcaster(() => targets).send('state', { type: 'state', n: 9 });
    expect(targets[0]?.received[0]).toBe(payload(9));
    expect(targets[0]?.received[0]).toBe(targets[1]?.received[0]);
  });

  it('with nobody to reach, nothing waits', () => {
    const turns = manualTurns();
    const broadcaster = new Broadcaster(() => [], 2, turns.nextTurn);
    broadcaster.send('state', { type: 'state', n: 1 });
    expect(broadcaster.busy).toBe(false);
    expect(turns.pending).toBe(0);
  });
});
