/**
 * A histogram for a hot path (the relay's drive forwarding): fixed buckets in a typed array, one
 * comparison loop and three additions per observation, nothing allocated — prom-client's own
 * Histogram builds objects on every `observe`, which the relay's p99 would feel. GET /metrics
 * reads it when scraped (metrics-registry.ts turns it into Prometheus buckets).
 */
import { performance } from 'node:perf_hooks';

/** Seconds. A drive is forwarded in well under a millisecond on a healthy server. */
export const RELAY_LATENCY_BUCKETS = [
  0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
] as const;

export class LatencyHistogram {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly #counts: Float64Array;
  #sum = 0;
  #count = 0;

  constructor(readonly bounds: readonly number[] = RELAY_LATENCY_BUCKETS) {
    this.#counts = new Float64Array(bounds.length + 1);
  }

  /** Counts the time since `startedAt` (a `performance.now()` reading). */
  observeSince(startedAt: number): void {
    this.observe((performance.now() - startedAt) / 1_000);
  }

  /** Counts one duration in seconds. */
  observe(seconds: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && seconds > (bounds[index] as number)) index += 1;
    this.#counts[index] = (this.#counts[index] as number) + 1;
    this.#sum += seconds;
    this.#count += 1;
  }

  get count(): number {
    return this.#count;
  }

  get sum(): number {
    return this.#sum;
  }

  /** Cumulative counts per bound, as Prometheus buckets are (`le`), the last one being +Inf. */
  cumulative(): number[] {
    let running = 0;
    return Array.from(this.#counts, (count) => {
      running += count;
      return running;
    });
  }
}
