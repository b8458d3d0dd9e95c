/** What the video ingest's thread and the server's main thread say to each other (structured clone). */
import type { IngestCounters } from './ingest-session.js';

export type ToIngest =
  /**
   * Receive the car's video (again): on `bind`'s address, a port of `ports` (any: null), `prefer`
   * first when given; forward to Janus at `janus`; authenticate with `key` (base64 SRTP master).
   * A car already open keeps its port and takes the new key and Janus port.
   */
  | {
      type: 'open';
      carId: number;
      key: string;
      bind: string;
      ports: { min: number; max: number } | null;
      prefer?: number;
      janus: { host: string; port: number };
    }
  | { type: 'close'; carId: number };

export type FromIngest =
  | { type: 'opened'; carId: number; port: number }
  | { type: 'failed'; carId: number; error: string }
  /** Every second, per open car: its counters so far and where it sends from. */
  | {
      type: 'stats';
      cars: { carId: number; counters: IngestCounters; kbps: number; lossPercent: number }[];
    };
