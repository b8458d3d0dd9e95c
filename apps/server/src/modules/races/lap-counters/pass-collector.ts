/** Test helper: collects a lap counter's passes and lets a test wait for the n-th one. */
import type { LapPass } from '../lap-counter.js';

export class PassCollector {
  readonly passes: LapPass[] = [];
  #waiters: { count: number; resolve: () => void }[] = [];

  readonly push = (pass: LapPass): void => {
    this.passes.push(pass);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.passes.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  };

  /** Resolves once `count` passes in all have arrived. */
  async waitFor(count: number): Promise<LapPass[]> {
    if (this.passes.length < count) {
      await new Promise<void>((resolve) => this.#waiters.push({ count, resolve }));
    }
    return this.passes.slice(0, count);
  }
}
