import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-histogram.js';

describe('LatencyHistogram', () => {
  it('counts each duration in the first bucket whose bound it does not pass, cumulated as Prometheus reads them', () => {
    const histogram = new LatencyHistogram([0.001, 0.01]);
    for (const seconds of [0.0005, 0.001, 0.002, 0.5]) histogram.observe(seconds);
    // le=0.001 (a bound is inclusive), le=0.01, +Inf.
    expect(histogram.cumulative()).toEqual([2, 3, 4]);
    expect(histogram.count).toBe(4);
    expect(histogram.sum).toBeCloseTo(0.5035, 6);
  });

  it('measures from a performance.now() reading, in seconds', () => {
    const histogram = new LatencyHistogram();
    histogram.observeSince(performance.now() - 2);
    expect(histogram.count).toBe(1);
    expect(histogram.sum).toBeGreaterThanOrEqual(0.002);
    expect(histogram.sum).toBeLessThan(1);
  });
});
