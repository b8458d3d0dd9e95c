/**
 * Broadcasts to thousands of sockets without holding the event loop: each message is serialized
 * once and written to the sockets a chunk at a time, one chunk per turn of the loop
 * (`setImmediate`), so a driven car's messages are read between chunks — writing to 5,000 sockets
 * takes ~60 ms of CPU here, far more than the relay may wait (docs/performance.md).
 *
 * Messages of one kind replace each other while they wait: the race state and the live leaderboard
 * are whole snapshots, so a socket that has not been reached yet gets only the latest (every
 * socket still gets every kind, in the order the kinds first waited).
 */
import { type SerializedMessage, serialize } from './message-guard.js';

export interface BroadcastTarget {
  sendSerialized(message: SerializedMessage): unknown;
}

/** Sockets written per turn: ~2–3 ms of work here. */
export const BROADCAST_CHUNK = 250;

export class Broadcaster {
  /** Waiting messages by kind (the latest of each), in the order the kinds started waiting. */
  readonly #waiting = new Map<string, SerializedMessage>();
  #draining = false;

  constructor(
    /** Every socket to reach, read when a message starts going out (later sockets ask for the state). */
    private readonly targets: () => Iterable<BroadcastTarget>,
    private readonly chunk: number = BROADCAST_CHUNK,
    private readonly nextTurn: (run: () => void) => void = setImmediate,
  ) {}

  /** Queues `message` under `kind`, replacing a waiting one of that kind. */
  send(kind: string, message: unknown): void {
    this.#waiting.delete(kind);
    this.#waiting.set(kind, serialize(message));
    if (!this.#draining) this.#next();
  }

  /** Whether messages are still going out (tests). */
  get busy(): boolean {
    return this.#draining;
  }

  #next(): void {
    const first = this.#waiting.entries().next();
    if (first.done) {
      this.#draining = false;
      return;
    }
    const [kind, message] = first.value;
    this.#waiting.delete(kind);
    this.#draining = true;
    const targets = [...this.targets()];
    // The first chunk goes now: a small audience is reached in the same turn.
    this.#write(message, targets, 0);
  }

  #write(message: SerializedMessage, targets: BroadcastTarget[], from: number): void {
    const end = Math.min(targets.length, from + this.chunk);
    for (let i = from; i < end; i += 1) targets[i]?.sendSerialized(message);
    if (end < targets.length) this.nextTurn(() => this.#write(message, targets, end));
    else if (this.#waiting.size > 0) this.nextTurn(() => this.#next());
    else this.#draining = false;
  }
}
