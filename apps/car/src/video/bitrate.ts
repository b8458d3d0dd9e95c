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
import { QUEUE_HIGH_MS } from '@telerace/protocol/video-uplink';
import type { UplinkReport } from './uplink.js';
/** Below this the uplink is clear: the bitrate may climb. */
export const QUEUE_LOW_MS = 30;
/** Losses (fraction of packets, before repair) that mean the uplink is saturated. */
export const LOSS_HIGH = 0.1;
/**
 * Loss is judged over the last second's reports, and only on this many packets: a quarter second
 * holds 20–30 packets at a few hundred kbit/s, where 3 random losses (of a 2 % lossy Wi-Fi link,
 * which repair hides) would already read as 10 % and cut the bitrate for nothing.
 */
const LOSS_WINDOW_MS = 1_000;
const LOSS_MIN_PACKETS = 60;
/** What arrived, times this, once the uplink is too narrow: room for the queue to drain. */
const DRAIN = 0.8;
/**
 * Less still while a queue waits: what it holds (queueMs of the uplink's rate) drains within
 * about this long, so the picture is on time again within the 2 s a driver tolerates.
 */
const DRAIN_WITHIN_MS = 1_000;
/** Never under this share of what arrived, however long the queue. */
const DRAIN_FLOOR = 0.5;
/**
 * A queue while the uplink carries less than this share of the bitrate: it is narrower than what
 * is sent, and the cut drains it. A queue while it carries nearly all of it (a busy machine's
 * timing, a keyframe, the encoder's own overshoot) gets only a step down (×0.85).
 */
const NARROWER = 0.85;
/** During the hold, only a queue this much longer than at the decrease lowers the bitrate again. */
const QUEUE_GROWTH_MS = 20;
/** Per clear report (250 ms) well below the last carried rate, or long after it: ×1.12 (300 kbit/s to 3 Mbit/s in about 5 s). */
const CLIMB = 1.12;
/** Per clear report near the rate the uplink last carried: probing gently. */
const PROBE = 1.02;
/** After a decrease, no increase for this long (the queue drains first). */
const HOLD_MS = 1_000;
/** Clear this long after a decrease: the rate it carried then is forgotten (the cap lifted?). */
const FORGET_MS = 3_000;
/**
 * …doubled each time the uplink queues again at about the rate it carried last time (the same cap
 * still there: each probe above it costs the driver a late second), up to this.
 */
const FORGET_MAX_MS = 8_000;
/** "About the same rate": within this share of the one carried at the decrease before. */
const SAME_CAP = 0.25;

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
  /** The queue at the last decrease: while it drains, the decrease is doing its work. */
  #queueAtDecrease = 0;
  /** What the uplink carried at the last decrease, and when; null: forgotten. */
  #carried: { kbps: number; at: number } | null = null;
  /** What it carried at the decrease before, forgotten or not: the same cap again? */
  #lastCarriedKbps: number | null = null;
  #forgetMs = FORGET_MS;
  /** Whether the bitrate climbed since the last decrease (a new decrease is then a probe that hit the cap). */
  #climbed = false;
  /** The queue the report before said: how fast it grows. */
  #lastQueueMs = 0;
  /** The last second's reports' packets: the loss is judged over them. */
  readonly #recent: { at: number; received: number; lost: number }[] = [];

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
    const { min, max } = this.#limits;
    const holding = now < this.#heldUntil;
    // The queue grows as fast again before a lower bitrate reaches the uplink (the report's trip,
    // the encoder's next frames): drain what it will be, not what it was.
    const growth = Math.max(0, report.queueMs - this.#lastQueueMs);
    this.#lastQueueMs = report.queueMs;
    const expectedQueueMs = report.queueMs + growth;
    const queued =
      report.queueMs > QUEUE_HIGH_MS &&
      (!holding || report.queueMs > this.#queueAtDecrease + QUEUE_GROWTH_MS);
    if (queued || this.#saturated(report, now)) {
      // What arrived is what the uplink carries now (when nothing arrived, halve).
      const carried = report.kbps > 0 ? report.kbps : this.#bitrate / 2 / DRAIN;
      const narrower = carried < NARROWER * this.#bitrate;
      const drain = Math.max(DRAIN_FLOOR, DRAIN - expectedQueueMs / DRAIN_WITHIN_MS);
      const step = this.#bitrate * 0.85;
      const lower = Math.max(min, narrower ? Math.min(step, carried * drain) : step);
      if (lower < this.#bitrate) {
        this.#bitrate = Math.round(lower);
        this.#heldUntil = now + HOLD_MS;
        this.#queueAtDecrease = report.queueMs;
        const sameCap =
          this.#lastCarriedKbps !== null &&
          Math.abs(carried - this.#lastCarriedKbps) <= SAME_CAP * this.#lastCarriedKbps;
        // A second cut of the same queue keeps the pace; a probe that met the same cap slows it.
        if (this.#climbed) this.#forgetMs = sameCap ? Math.min(FORGET_MAX_MS, this.#forgetMs * 2) : FORGET_MS;
        this.#climbed = false;
        this.#lastCarriedKbps = carried;
        this.#carried = { kbps: carried, at: now };
      }
    } else if (report.queueMs < QUEUE_LOW_MS && !holding && this.#bitrate < max) {
      if (this.#carried && now - this.#carried.at >= this.#forgetMs) this.#carried = null;
      const near = this.#carried !== null && this.#bitrate >= DRAIN * this.#carried.kbps;
      this.#bitrate = Math.round(Math.min(max, this.#bitrate * (near ? PROBE : CLIMB)));
      this.#climbed = true;
    }
    return this.#bitrate;
  }

  /** Heavy loss over the last second (enough packets to tell), or nothing arriving at all. */
  #saturated(report: UplinkReport, now: number): boolean {
    const recent = this.#recent;
    recent.push({ at: now, received: report.received, lost: report.lost });
    while (recent.length > 0 && (recent[0] as { at: number }).at <= now - LOSS_WINDOW_MS) recent.shift();
    if (report.received === 0 && report.lost > 0) return true;
    let received = 0;
    let lost = 0;
    for (const entry of recent) {
      received += entry.received;
      lost += entry.lost;
    }
    return received + lost >= LOSS_MIN_PACKETS && lost / (received + lost) > LOSS_HIGH;
  }
}
