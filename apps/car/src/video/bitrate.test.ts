import { describe, expect, it } from 'vitest';
import { BitrateController, QUEUE_HIGH_MS } from './bitrate.js';
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
    const c = new BitrateController({ max: 3000, min: 150 });
    // The cap: 300 kbit/s arrive while 3 Mbit/s are sent, and frames queue.
    const first = c.next(report({ kbps: 300, queueMs: 200 }), 0);
    expect(first).toBeLessThanOrEqual(300);
    expect(first).toBeGreaterThanOrEqual(150);
    // Still queueing (the queue drains): lower still, never below the floor.
    let t = 250;
    for (; t <= 1000; t += 250) c.next(report({ kbps: 240, queueMs: QUEUE_HIGH_MS + 10 }), t);
    expect(c.bitrate).toBeGreaterThanOrEqual(150);
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
    const c = new BitrateController({ max: 800, min: 150 });
    // 200 ms queued: 300 kbit/s × (0.8 − 0.2), so the queue drains within a second.
    c.next(report({ kbps: 300, queueMs: 200 }), 0);
    expect(c.bitrate).toBe(180);
    // Clear after the hold: ×1.12 a report up to 80 % of the 300 kbit/s carried…
    expect(c.next(report({ kbps: 180 }), 1_000)).toBe(202);
    expect(c.next(report({ kbps: 202 }), 1_250)).toBe(226);
    expect(c.next(report({ kbps: 226 }), 1_500)).toBe(253);
    // …then ×1.02 a report near it.
    expect(c.next(report({ kbps: 253 }), 1_750)).toBe(258);
    // Three seconds clear: forgotten, ×1.12 a report.
    expect(c.next(report({ kbps: 258 }), 3_000)).toBe(289);
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
