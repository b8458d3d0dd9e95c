import { QUEUE_HIGH_MS } from '@telerace/protocol/video-uplink';
import { describe, expect, it } from 'vitest';
import { BitrateController } from './bitrate.js';
import type { UplinkReport } from './uplink.js';

const report = (fields: Partial<UplinkReport>): UplinkReport => ({
  kind: 'report',
  received: 100,
  lost: 0,
  recovered: 0,
  retransmitted: 0,
  unrepaired: 0,
  kbps: 3000,
  queueMs: 0,
  rttMs: 80,
  ...fields,
});

describe('BitrateController', () => {
  it('starts at the configured bitrate and never climbs above it', () => {
    const c = new BitrateController({ max: 3000, min: 150 });
    expect(c.bitrate).toBe(3000);
    for (let t = 0; t < 5000; t += 250) expect(c.next(report({}), t)).toBe(3000);
  });

  it('falls at once under what really arrived when the uplink queues (a 300 kbit/s cap), and climbs back within 10 s once it clears', () => {
    const c = new BitrateController({ max: 3000, min: 100 });
    // The cap: 300 kbit/s arrive while 3 Mbit/s are sent, and frames queue.
    const first = c.next(report({ kbps: 300, queueMs: 200 }), 0);
    expect(first).toBeLessThanOrEqual(300);
    expect(first).toBeGreaterThanOrEqual(150);
    // The queue drains: the decrease is working, held.
    let t = 250;
    for (; t < 1000; t += 250)
      expect(c.next(report({ kbps: 300, queueMs: QUEUE_HIGH_MS + 10 }), t)).toBe(first);
    // Still queueing once the hold is over: lower still, never below the floor.
    for (; t <= 2000; t += 250) c.next(report({ kbps: 240, queueMs: QUEUE_HIGH_MS + 10 }), t);
    expect(c.bitrate).toBeGreaterThanOrEqual(100);
    expect(c.bitrate).toBeLessThan(first);
    // Clear from here: held for a second, then back up to 3 Mbit/s within 10 s of the cap lifting.
    const lifted = t;
    while (c.bitrate < 3000 && t < lifted + 20_000) {
      c.next(report({ kbps: c.bitrate, queueMs: 2 }), t);
      t += 250;
    }
    expect(c.bitrate).toBe(3000);
    expect(t - lifted).toBeLessThanOrEqual(10_000);
  });

  it('falls on heavy loss even without a queue, and holds between the thresholds', () => {
    const c = new BitrateController({ max: 1000, min: 150 });
    expect(c.next(report({ received: 80, lost: 20, kbps: 900 }), 0)).toBeLessThan(1000);
    const held = c.bitrate;
    // Moderate queueing: neither up nor down.
    for (let t = 2000; t < 4000; t += 250) c.next(report({ queueMs: 60 }), t);
    expect(c.bitrate).toBe(held);
    // A light loss that repair hides (2 %) is not a reason to fall.
    c.next(report({ received: 98, lost: 2 }), 5000);
    expect(c.bitrate).toBeGreaterThanOrEqual(held);
  });

  it('probes gently near the rate the uplink last carried, then climbs quickly once that is forgotten', () => {
    const c = new BitrateController({ max: 800, min: 100 });
    // A steady 100 ms queue at 300 kbit/s: × (0.8 − 0.1), so that it drains within a second.
    c.next(report({ kbps: 300, queueMs: 50 }), -250);
    expect(c.next(report({ kbps: 300, queueMs: 100 }), 0)).toBe(Math.round(300 * (0.8 - (100 + 50) / 1000)));
    expect(c.bitrate).toBe(195);
    // Clear after the hold: ×1.12 a report up to 80 % of the 300 kbit/s carried…
    expect(c.next(report({ kbps: 195 }), 1_000)).toBe(218);
    expect(c.next(report({ kbps: 218 }), 1_250)).toBe(244);
    // …then ×1.02 a report near it.
    expect(c.next(report({ kbps: 244 }), 1_500)).toBe(249);
    // Three seconds clear: forgotten, ×1.12 a report.
    expect(c.next(report({ kbps: 249 }), 3_000)).toBe(279);
  });

  it('cuts deeper when the queue grows fast: it will be that much longer before the cut reaches the uplink', () => {
    const steady = new BitrateController({ max: 3000, min: 50 });
    steady.next(report({ kbps: 300, queueMs: 55 }), -250);
    const growing = new BitrateController({ max: 3000, min: 50 });
    growing.next(report({ kbps: 300, queueMs: 0 }), -250);
    const after = report({ kbps: 300, queueMs: 100 });
    expect(growing.next(after, 0)).toBeLessThan(steady.next(after, 0));
  });

  it('cuts deeper the longer the queue, so that it drains within about a second', () => {
    for (const queueMs of [80, 150, 300, 500]) {
      const c = new BitrateController({ max: 3000, min: 50 });
      const carried = 300;
      const bitrate = c.next(report({ kbps: carried, queueMs }), 0);
      // What waits (queueMs of the carried rate) drains at carried − bitrate: within 1.1 s.
      const drainMs = (queueMs * carried) / (carried - bitrate);
      expect(drainMs, `${queueMs} ms queued`).toBeLessThanOrEqual(1_100);
      expect(bitrate).toBeGreaterThanOrEqual(0.5 * carried);
    }
  });

  it('while the queue drains after a decrease, lowers again only if it grows', () => {
    const c = new BitrateController({ max: 3000, min: 50 });
    const first = c.next(report({ kbps: 300, queueMs: 200 }), 0);
    // Draining: the decrease is working, no second cut in the hold.
    expect(c.next(report({ kbps: 300, queueMs: 180 }), 250)).toBe(first);
    expect(c.next(report({ kbps: 300, queueMs: 120 }), 500)).toBe(first);
    // Growing: the uplink narrowed further.
    expect(c.next(report({ kbps: 200, queueMs: 250 }), 750)).toBeLessThan(first);
  });

  it('steps down only ×0.85 for a queue while the uplink carries nearly all it is sent (jitter, a keyframe), and climbs back', () => {
    const c = new BitrateController({ max: 600, min: 150 });
    expect(c.next(report({ kbps: 580, queueMs: 120 }), 0)).toBe(510);
    let t = 1_000;
    for (; c.bitrate < 600 && t < 6_000; t += 250) c.next(report({ kbps: c.bitrate }), t);
    expect(c.bitrate).toBe(600);
    expect(t).toBeLessThanOrEqual(4_000);
  });

  it('under a cap that stays, probes above it less and less often; a lifted cap is still found within 10 s', () => {
    const c = new BitrateController({ max: 600, min: 150 });
    const cap = 300;
    /** The uplink: a queue once the bitrate is over the cap. */
    const run = (from: number, to: number, capKbps: number | null, bitrates: number[] = []) => {
      const cuts: number[] = [];
      for (let t = from; t < to; t += 250) {
        bitrates.push(c.bitrate);
        const over = capKbps !== null && c.bitrate > capKbps;
        const before = c.bitrate;
        c.next(report({ kbps: over ? (capKbps as number) : c.bitrate, queueMs: over ? 150 : 0 }), t);
        if (c.bitrate < before) cuts.push(t);
      }
      return cuts;
    };
    const peaks: number[] = [];
    const cuts = run(0, 40_000, cap, peaks);
    expect(cuts.length).toBeGreaterThan(3);
    // Once it has met the cap a few times, it only probes gently: never 10 % over it.
    expect(Math.max(...peaks.slice(peaks.length / 2))).toBeLessThanOrEqual(1.1 * cap);
    // The cap lifts: back at the configured 600 kbit/s within 10 s.
    run(40_000, 50_000, null);
    expect(c.bitrate).toBe(600);
  });

  it('does not fall on random loss that repair hides: an unlucky quarter second is not a saturated link', () => {
    const c = new BitrateController({ max: 600, min: 150 });
    // 2 % loss at ~100 packets a second: now and then 3 of a report's 26 packets.
    for (let t = 0; t < 10_000; t += 250) {
      const unlucky = t % 2_000 === 0;
      expect(c.next(report({ received: unlucky ? 23 : 26, lost: unlucky ? 3 : 0, kbps: 600 }), t)).toBe(600);
    }
    // A saturated link loses 10 % and more over the whole second: down.
    for (let t = 10_000; t < 11_000; t += 250) c.next(report({ received: 22, lost: 4, kbps: 600 }), t);
    expect(c.bitrate).toBeLessThan(600);
  });

  it('halves when nothing arrived at all', () => {
    const c = new BitrateController({ max: 800, min: 150 });
    expect(c.next(report({ received: 0, lost: 30, kbps: 0 }), 0)).toBe(400);
  });
});
