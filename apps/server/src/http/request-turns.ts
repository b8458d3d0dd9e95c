/**
 * Requests take turns with the rest of the event loop. A driven car's commands share this
 * process's event loop with the web traffic; while many requests are ready at once (a live
 * stream's audience polling), Node ran all of them before it read the next control message, so a
 * drive waited for the whole batch (~50 requests: several milliseconds at the 99th percentile,
 * 4–5 ms at the median). Here every request's work — each hook after this first one, the
 * handler, the answer — is queued and run from `setImmediate` for at most REQUEST_TURN_BUDGET_MS
 * at a time; an immediate queued from inside another runs only after the loop has polled its
 * sockets again, so a drive waits for about one budget. Requests keep their order. Measured in
 * `npm run bench -- relay-under-load` (and, as a side effect, the hot reads got faster: they now run
 * back to back, after the loop has read every ready socket); decision in decisions.md.
 */
import type { FastifyInstance } from 'fastify';

/** Pieces of work already run that the queue drops at once (a splice per this many). */
const COMPACT_AFTER = 256;

export class RequestTurns {
  readonly #waiting: (() => void)[] = [];
  #next = 0;
  #scheduled = false;

  /**
   * @param budgetMs how long one turn may run queued work before it lets the loop poll again
   *   (0: one piece per turn). A little more than one request keeps the cost of the extra polls low.
   */
  constructor(readonly budgetMs = 0) {}

  /** Runs `work` in a turn of its own, after the work queued before it. */
  enqueue(work: () => void): void {
    this.#waiting.push(work);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#runOne);
    }
  }

  /** Requests waiting for their turn (diagnostics). */
  get waiting(): number {
    return this.#waiting.length - this.#next;
  }

  readonly #runOne = (): void => {
    const started = performance.now();
    do {
      const work = this.#waiting[this.#next];
      this.#next += 1;
      if (this.#next === this.#waiting.length) {
        this.#waiting.length = 0;
        this.#next = 0;
      } else if (this.#next >= COMPACT_AFTER) {
        // Under steady load the queue may never run dry: drop the pieces already run (each holds
        // its request and reply) instead of keeping every one since the queue was last empty.
        this.#waiting.splice(0, this.#next);
        this.#next = 0;
      }
      work?.();
    } while (this.waiting > 0 && performance.now() - started < this.budgetMs);
    if (this.waiting > 0) setImmediate(this.#runOne);
    else this.#scheduled = false;
  };
}

/** How long requests may run before a control message gets its turn (~10 cached reads). */
export const REQUEST_TURN_BUDGET_MS = 0.5;

/** The first `onRequest` hook of every route (registered before any other). */
export function registerRequestTurns(app: FastifyInstance, budgetMs = REQUEST_TURN_BUDGET_MS): RequestTurns {
  const turns = new RequestTurns(budgetMs);
  app.addHook('onRequest', (_request, _reply, done) => turns.enqueue(done));
  return turns;
}
