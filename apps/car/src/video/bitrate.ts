/**
 * The encoder's bitrate from what the server's ingest reports of the uplink every 250 ms
 * (uplink.ts, protocol video-uplink/repair.ts): down at once when the uplink falls behind, to a
 * little under what really arrived; back up step by step while it keeps up, to the configured
 * bitrate. A narrow link is noticed before it drops much: less arrives than the car sent (the
 * uplink's queue fills), or the ingest sees the frames arrive later and later than their capture
 * (`queueMs`) — the first needs no clock, the second catches a queue the rates hide.
 *
 * Pure: `next(report, sentKbps)` says the bitrate to use now (the same when nothing changes).
 */
import type { UplinkReport } from './uplink.js';

/** Queueing (ms) that means the uplink is narrower than what is sent. */
export const QUEUE_HIGH_MS = 80;
/** Below this the uplink is clear: the bitrate may climb. */
export const QUEUE_LOW_MS = 40;
/** Less than this share of what was sent arriving (smoothed) means the uplink falls behind. */
export const BEHIND = 0.8;
/** What arrives must be at least this share of what was sent for the bitrate to climb. */
const KEEPING_UP = 0.9;
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
  /** What arrived over what was sent, smoothed over about a second of reports. */
  #delivered = 1;

  constructor(limits: BitrateLimits) {
    this.#limits = limits;
    this.#bitrate = limits.max;
  }

  get bitrate(): number {
    return this.#bitrate;
  }

  /** `sentKbps`: what the car sent over the report's period (undefined: not known). */
  next(report: UplinkReport, now: number, sentKbps?: number): number {
    const packets = report.received + report.lost;
    const loss = packets > 0 ? report.lost / packets : 0;
    if (sentKbps !== undefined && sentKbps > 0)
      this.#delivered = 0.5 * this.#delivered + 0.5 * Math.min(1.5, report.kbps / sentKbps);
    const { min, max } = this.#limits;
    if (report.queueMs > QUEUE_HIGH_MS || loss > LOSS_HIGH || this.#delivered < BEHIND) {
      // What arrived is what the uplink carries now (when nothing arrived, halve).
      const carried = report.kbps > 0 ? report.kbps * DRAIN : this.#bitrate / 2;
      const lower = Math.max(min, Math.min(this.#bitrate * 0.85, carried));
      if (lower < this.#bitrate) {
        this.#bitrate = Math.round(lower);
        this.#heldUntil = now + HOLD_MS;
        this.#delivered = 1;
      }
    } else if (
      report.queueMs < QUEUE_LOW_MS &&
      this.#delivered >= KEEPING_UP &&
      now >= this.#heldUntil &&
      this.#bitrate < max
    ) {
      this.#bitrate = Math.round(Math.min(max, this.#bitrate * CLIMB));
    }
    return this.#bitrate;
  }
}
