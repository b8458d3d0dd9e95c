/**
 * The encoder's bitrate from what the server's ingest reports of the uplink every 250 ms
 * (uplink.ts, protocol video-uplink/repair.ts): down at once when the uplink queues or loses, to
 * a little under what really arrived; back up step by step while it is clear, to the configured
 * bitrate. A narrow link is noticed by its queue before it drops anything: the ingest measures
 * how much later than their lowest the frames arrive (`queueMs`).
 *
 * Pure: `next(report)` says the bitrate to use now (the same when nothing changes).
 */
import type { UplinkReport } from './uplink.js';

/** Queueing (ms) that means the uplink is narrower than what is sent. */
export const QUEUE_HIGH_MS = 50;
/** Below this the uplink is clear: the bitrate may climb. */
export const QUEUE_LOW_MS = 15;
/** Losses (fraction of packets, before repair) that mean the uplink is saturated. */
export const LOSS_HIGH = 0.1;
/** What arrived, times this, once the uplink is too narrow: room for the queue to drain. */
const DRAIN = 0.8;
/** Per clear report (250 ms): ×1.1, so 300 kbit/s climbs back to 3 Mbit/s in about 6 s. */
const CLIMB = 1.1;
/** After a decrease, no increase for this long (the queue drains first). */
const HOLD_MS = 1_000;

export interface BitrateLimits {
  /** kbit/s: the configured bitrate, never exceeded. */
  max: number;
  /** kbit/s: never below (a picture still worth watching). */
  min: number;
}

export class BitrateController {
  readonly #limits: BitrateLimits;
  #bitrate: number;
  #heldUntil = 0;

  constructor(limits: BitrateLimits) {
    this.#limits = limits;
    this.#bitrate = limits.max;
  }

  get bitrate(): number {
    return this.#bitrate;
  }

  next(report: UplinkReport, now: number): number {
    const packets = report.received + report.lost;
    const loss = packets > 0 ? report.lost / packets : 0;
    const { min, max } = this.#limits;
    if (report.queueMs > QUEUE_HIGH_MS || loss > LOSS_HIGH) {
      // What arrived is what the uplink carries now (when nothing arrived, halve).
      const carried = report.kbps > 0 ? report.kbps * DRAIN : this.#bitrate / 2;
      const lower = Math.max(min, Math.min(this.#bitrate * 0.85, carried));
      if (lower < this.#bitrate) {
        this.#bitrate = Math.round(lower);
        this.#heldUntil = now + HOLD_MS;
      }
    } else if (report.queueMs < QUEUE_LOW_MS && now >= this.#heldUntil && this.#bitrate < max) {
      this.#bitrate = Math.round(Math.min(max, this.#bitrate * CLIMB));
    }
    return this.#bitrate;
  }
}
