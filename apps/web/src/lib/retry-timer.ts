/**
 * The one timer that waits a backoff delay out (the shared `Backoff` of @telerace/protocol, spec
 * §9 delays), used by the reconnecting socket and the video retries.
 */
import type { Backoff } from '@telerace/protocol';

/** The sockets' jitter: a restart's reconnections spread over the last quarter of each delay. */
export const RECONNECT_JITTER = 0.25;

/** Runs one retry after the backoff's next delay; a new schedule or `cancel` drops the pending one. */
export class RetryTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly backoff: Backoff) {}

  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Returns the delay chosen. */
  schedule(retry: () => void): number {
    this.cancel();
    const delay = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      retry();
    }, delay);
    return delay;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
