/**
 * The ping a driver sees (issue 25): the median of the last few round trips of the control
 * socket, so that one slow sample — the page still loading, a garbage collection, a Wi-Fi
 * hiccup — does not paint the pill red, while a link that really got slower shows within a few
 * samples.
 */
export const ROUND_TRIPS_KEPT = 5;

export class RoundTrips {
  readonly #samples: number[] = [];

  constructor(readonly kept: number = ROUND_TRIPS_KEPT) {}

  /** Records a round trip (ms) and returns the median of those kept. */
  add(ms: number): number {
    this.#samples.push(ms);
    if (this.#samples.length > this.kept) this.#samples.shift();
    return this.median() as number;
  }

  /** The median of the samples kept (the lower middle one of an even count), null when none. */
  median(): number | null {
    if (this.#samples.length === 0) return null;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
  }

  /** A new connection starts over: the last one's samples say nothing of this one. */
  clear(): void {
    this.#samples.length = 0;
  }
}

/**
 * Runs `run` once the page is idle: loaded, and the browser has a moment with nothing else to do
 * (a round trip measured while the page is still busy loading measured the page, not the link).
 * Returns a cancel.
 */
export function whenPageIdle(run: () => void): () => void {
  let cancelled = false;
  let cancelIdle = () => {};
  const idle = () => {
    if (cancelled) return;
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(run, { timeout: 1_000 });
      cancelIdle = () => window.cancelIdleCallback(handle);
    } else {
      const handle = window.setTimeout(run, 50);
      cancelIdle = () => window.clearTimeout(handle);
    }
  };
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
  return () => {
    cancelled = true;
    window.removeEventListener('load', idle);
    cancelIdle();
  };
}
