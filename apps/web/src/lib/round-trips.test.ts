import { describe, expect, it } from 'vitest';
import { RoundTrips } from './round-trips';

describe('RoundTrips', () => {
  it('has no figure before the first sample', () => {
    expect(new RoundTrips().median()).toBeNull();
  });

  it('is the median of the samples kept, the lower middle one of an even count', () => {
    const trips = new RoundTrips(5);
    expect(trips.add(40)).toBe(40);
    expect(trips.add(10)).toBe(10);
    expect(trips.add(30)).toBe(30);
    expect(trips.add(20)).toBe(20);
    expect(trips.add(50)).toBe(30);
  });

  it('keeps only the last samples', () => {
    const trips = new RoundTrips(3);
    for (const ms of [900, 800, 700]) trips.add(ms);
    expect(trips.median()).toBe(800);
    trips.add(5);
    trips.add(6);
    expect(trips.median()).toBe(6);
    expect(trips.add(7)).toBe(6);
  });

  it('forgets every sample when cleared', () => {
    const trips = new RoundTrips();
    trips.add(12);
    trips.clear();
    expect(trips.median()).toBeNull();
    expect(trips.add(3)).toBe(3);
  });
});
