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
    c.next(report({ kbps: 300, queueMs: 200 }), 0);
    expect(c.bitrate).toBe(240);
    // Clear after the hold: ×1.02 a report near 300 kbit/s.
    expect(c.next(report({ kbps: 240 }), 1_000)).toBe(245);
    // Three seconds clear: forgotten, ×1.12 a report.
    expect(c.next(report({ kbps: 245 }), 3_000)).toBe(274);
  });

  it('halves when nothing arrived at all', () => {
    const c = new BitrateController({ max: 800, min: 150 });
    expect(c.next(report({ received: 0, lost: 30, kbps: 0 }), 0)).toBe(400);
  });
});
