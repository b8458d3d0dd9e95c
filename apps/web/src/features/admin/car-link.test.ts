import { describe, expect, it } from 'vitest';
import { linkHealth } from './car-link';

const link = (figures: Partial<{ rttMs: number; lossPercent: number; deadmanTrips: number }> = {}) => ({
  channel: true,
  deadmanTrips: 0,
  ...figures,
});

/** What a car reports of its video (issue 43): 480×360 at 600 of 600 kbit/s unless told. */
const video = (figures: Partial<{ bitrate: number; unrepairedPercent: number }> = {}) => ({
  width: 480,
  height: 360,
  framerate: 30,
  bitrate: 600,
  maxBitrate: 600,
  ...figures,
});

describe('linkHealth', () => {
  it('is good with no figure at all (an older car) and with good figures', () => {
    expect(linkHealth({})).toEqual({ health: 'good', issues: [] });
    expect(linkHealth({ fps: 30, link: link({ rttMs: 80, lossPercent: 0.5 }) })).toEqual({
      health: 'good',
      issues: [],
    });
  });

  it.each([
    [{ link: link({ rttMs: 149 }) }, 'good'],
    [{ link: link({ rttMs: 150 }) }, 'degraded'],
    [{ link: link({ rttMs: 300 }) }, 'bad'],
    [{ link: link({ lossPercent: 1.9 }) }, 'good'],
    [{ link: link({ lossPercent: 2 }) }, 'degraded'],
    [{ link: link({ lossPercent: 10 }) }, 'bad'],
    [{ link: link({ deadmanTrips: 1 }) }, 'degraded'],
    [{ link: link({ deadmanTrips: 5 }) }, 'bad'],
    [{ fps: 20 }, 'good'],
    [{ fps: 19.9 }, 'degraded'],
    [{ fps: 9 }, 'bad'],
    [{ video: video({ bitrate: 540 }) }, 'good'],
    [{ video: video({ bitrate: 539 }) }, 'degraded'],
    [{ video: video({ unrepairedPercent: 1 }) }, 'degraded'],
    [{ video: video({ unrepairedPercent: 5 }) }, 'bad'],
  ] as const)('%j is %s', (telemetry, health) => {
    expect(linkHealth(telemetry).health).toBe(health);
  });

  it('is as bad as its worst figure and names every figure out of bounds', () => {
    expect(linkHealth({ fps: 15, link: link({ rttMs: 320, lossPercent: 3 }) })).toEqual({
      health: 'bad',
      issues: ['rtt', 'loss', 'fps'],
    });
  });
});
