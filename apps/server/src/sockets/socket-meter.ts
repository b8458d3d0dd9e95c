/**
 * How many sockets of each kind are open and how many messages they carried, for GET /metrics
 * (scale-out/metrics/). The kit bumps plain numbers on the hot path (one addition per message,
 * nothing allocated); the metrics server reads them when it is scraped.
 */
import type { DropCounters } from './message-guard.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open sockets and messages per kind of socket (car, controller, event, video). */
    socketMeter: SocketMeter;
  }
}

/** One kind of socket's counts since the server started (`open` goes up and down). */
export interface SocketTraffic {
  open: number;
  /** Messages read from clients, including those then dropped. */
  received: number;
  /** Messages queued to clients. */
  sent: number;
  /** The kit's drop counters of this kind; null for a raw socket (the /janus proxy) that has none. */
  dropped: DropCounters | null;
}

export class SocketMeter {
  readonly #kinds = new Map<string, SocketTraffic>();

  /** The counts of `name`, created on first use (a socket kind registered by its route). */
  kind(name: string, dropped: DropCounters | null = null): SocketTraffic {
    let traffic = this.#kinds.get(name);
    if (!traffic) {
      traffic = { open: 0, received: 0, sent: 0, dropped };
      this.#kinds.set(name, traffic);
    }
    traffic.dropped ??= dropped;
    return traffic;
  }

  /** Every kind registered so far, by name. */
  kinds(): ReadonlyMap<string, SocketTraffic> {
    return this.#kinds;
  }
}
