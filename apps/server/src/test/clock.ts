/**
 * A clock that moves only when the test says so. Its timers fire, in time order, inside
 * `advance`, so a test says "15 minutes later" instead of rewriting timestamps in the database.
 */
import type { Clock, ClockTimer } from '../clock.js';

interface Scheduled extends ClockTimer {
  at: number;
  every: number | null;
  run: () => void;
}

export class ManualClock implements Clock {
  #now: number;
  #timers = new Set<Scheduled>();

  constructor(start: Date = new Date()) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  setTimeout(run: () => void, ms: number): ClockTimer {
    return this.#add({ at: this.#now + Math.max(0, ms), every: null, run });
  }

  setInterval(run: () => void, ms: number): ClockTimer {
    return this.#add({ at: this.#now + Math.max(1, ms), every: Math.max(1, ms), run });
  }

  clear(timer: ClockTimer | undefined): void {
    this.#timers.delete(timer as Scheduled);
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const next = [...this.#timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.#now = next.at;
      if (next.every === null) this.#timers.delete(next);
      else next.at += next.every;
      next.run();
    }
    this.#now = end;
  }

  #add(timer: Scheduled): Scheduled {
    this.#timers.add(timer);
    return timer;
  }
}
