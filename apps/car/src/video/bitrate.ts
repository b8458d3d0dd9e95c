/**
 * The encoder's bitrate from what the server's ingest reports of the uplink every 250 ms
 * (uplink.ts, protocol video-uplink/repair.ts): down at once when the uplink queues or loses, to
 * a little under what really arrived; back up while it is clear — slowly near the rate the uplink
 * last carried, quickly below it, and quickly again once it has stayed clear a while (the cap may
 * have lifted). A narrow link is noticed by its queue before it drops much: the ingest measures
 * how much later than their lowest the frames arrive (`queueMs`).
 *
 * Pure: `next(report, now)` says the bitrate to use now (the same when nothing changes).
 */
import type { UplinkReport } from './uplink.js';

/** Queueing (ms) that means the uplink is narrower than what is sent. */
export const QUEUE_HIGH_MS = 60;
/** Below this the uplink is clear: the bitrate may climb. */
export const QUEUE_LOW_MS = 30;
/** Losses (fraction of packets, before repair) that mean the uplink is saturated. */
export const LOSS_HIGH = 0.1;
/** What arrived, times this, once the uplink is too narrow: room for the queue to drain. */
const DRAIN = 0.8;
/** Per clear report (250 ms) well below the last carried rate, or long after it: ×1.12 (300 kbit/s to 3 Mbit/s in about 5 s). */
const CLIMB = 1.12;
/** Per clear report near the rate the uplink last carried: probing gently. */
const PROBE = 1.02;
/** After a decrease, no increase for this long (the queue drains first). */
const HOLD_MS = 1_000;
/** Clear this long after a decrease: the rate it carried then is forgotten (the cap lifted?). */
const FORGET_MS = 3_000;

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
  /** What the uplink carried at the last decrease, and when; null: forgotten. */
  #carried: { kbps: number; at: number } | null = null;

  constructor(limits: BitrateLimits) {
    this.#limits = limits;
    this.#bitrate = limits.max;
  }

  get bitrate(): number {
    return this.#bitrate;
  }

  /**
   * `report.kbps` counts the video that arrived, not the repair beside it (parity, resends): 80 %
   * of it for the encoder leaves the uplink room for both.
   */
  next(report: UplinkReport, now: number): number {
    const packets = report.received + report.lost;
    const loss = packets > 0 ? report.lost / packets : 0;
    const { min, max } = this.#limits;
    if (report.queueMs > QUEUE_HIGH_MS || loss > LOSS_HIGH) {
      // What arrived is what the uplink carries now (when nothing arrived, halve).
      const carried = report.kbps > 0 ? report.kbps : this.#bitrate / 2 / DRAIN;
      const lower = Math.max(min, Math.min(this.#bitrate * 0.85, carried * DRAIN));
      if (lower < this.#bitrate) {
        this.#bitrate = Math.round(lower);
        this.#heldUntil = now + HOLD_MS;
        this.#carried = { kbps: carried, at: now };
      }
    } else if (report.queueMs < QUEUE_LOW_MS && now >= this.#heldUntil && this.#bitrate < max) {
      if (this.#carried && now - this.#carried.at >= FORGET_MS) this.#carried = null;
      const near = this.#carried !== null && this.#bitrate >= DRAIN * this.#carried.kbps;
      this.#bitrate = Math.round(Math.min(max, this.#bitrate * (near ? PROBE : CLIMB)));
    }
    return this.#bitrate;
  }
}
