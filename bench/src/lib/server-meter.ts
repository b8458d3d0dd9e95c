/**
 * What the measured server went through over an interval, read from outside: its `/metrics`
 * (event-loop delay, the relay's own histogram, open sockets), its CPU time and resident size
 * from /proc, and its JS heap after a full collection through its inspector (without the
 * collection, the heap in use mostly says when V8 last collected).
 */
import { performance } from 'node:perf_hooks';
import { collectedHeapKb } from './inspector-heap.js';
import { cpuMs, residentKb } from './proc-stats.js';
import { round } from './report.js';
import { histogramQuantile, metric, type Sample, scrapeMetrics } from './server-metrics.js';

export interface MemorySample {
  /** Seconds since `begin()`. */
  at_s: number;
  heap_mb: number;
  rss_mb: number;
}

export interface ServerInterval {
  /** prom-client's event-loop delay histogram, which starts afresh at each scrape. */
  eventloop_p99_ms: number;
  eventloop_max_ms: number;
  /** The relay's histogram (a drive's arrival to its forwarding): the bound of the p99's bucket. */
  relay_server_p99_ms: number;
  server_cpu_percent: number;
  event_sockets: number;
  controller_sockets: number;
}

const mb = (kb: number) => round(kb / 1024, 1);

export class ServerMeter {
  #start = 0;
  #scrape: Sample[] = [];
  #cpu = 0;
  #at = 0;

  constructor(
    readonly pid: number,
    readonly metricsUrl: string,
    readonly inspectPort: number,
  ) {}

  /** The first interval starts now (the event-loop histogram too). */
  async begin(): Promise<void> {
    this.#scrape = await scrapeMetrics(this.metricsUrl);
    this.#cpu = cpuMs(this.pid);
    this.#at = performance.now();
    this.#start = this.#at;
  }

  /** Heap after a full collection, and the resident size then. */
  async memory(): Promise<MemorySample> {
    const heapKb = await collectedHeapKb(this.inspectPort);
    return {
      at_s: round((performance.now() - this.#start) / 1000, 1),
      heap_mb: mb(heapKb),
      rss_mb: mb(residentKb(this.pid)),
    };
  }

  /**
   * Ends the interval and starts the next. The metrics are read first, then the memory sample's
   * collection runs: its pause falls in the next interval.
   */
  async interval(): Promise<{ server: ServerInterval; memory: MemorySample }> {
    const scrape = await scrapeMetrics(this.metricsUrl);
    const at = performance.now();
    const cpu = cpuMs(this.pid);
    const server: ServerInterval = {
      eventloop_p99_ms: round(metric(scrape, 'nodejs_eventloop_lag_p99_seconds') * 1000, 1),
      eventloop_max_ms: round(metric(scrape, 'nodejs_eventloop_lag_max_seconds') * 1000, 1),
      relay_server_p99_ms: round(
        histogramQuantile(this.#scrape, scrape, 'telerace_relay_latency_seconds', 0.99) * 1000,
        3,
      ),
      server_cpu_percent: round(((cpu - this.#cpu) / (at - this.#at)) * 100, 0),
      event_sockets: metric(scrape, 'telerace_sockets_open', { kind: 'event' }),
      controller_sockets: metric(scrape, 'telerace_sockets_open', { kind: 'controller' }),
    };
    this.#scrape = scrape;
    this.#cpu = cpu;
    this.#at = at;
    return { server, memory: await this.memory() };
  }
}
