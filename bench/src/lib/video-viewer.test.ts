import { describe, expect, it } from 'vitest';
import {
  encoderColumns,
  encoderKbps,
  type InboundVideo,
  inboundDelta,
  lateUntilMs,
  type PresentedFrame,
  recoveredAfterMs,
  summarizeWindow,
} from './video-viewer.js';

/** Frames shown every `every` ms from `from`, each captured `g2g` ms before; `unreadable` indexes have no strip. */
function frames(
  from: number,
  count: number,
  every: number,
  g2g: number,
  unreadable: number[] = [],
): PresentedFrame[] {
  return Array.from({ length: count }, (_, i) => ({
    shownAt: from + i * every,
    presented: 100 + i,
    captured: unreadable.includes(i) ? null : from + i * every - g2g,
  }));
}

describe('summarizeWindow', () => {
  it('counts the frames, the damaged ones and glass-to-glass within the window', () => {
    const summary = summarizeWindow(frames(1_000, 30, 100, 50, [3, 4]), { from: 1_000, to: 4_000, fps: 10 });
    expect(summary).toMatchObject({ seconds: 3, presented: 30, readable: 28, damaged: 2 });
    expect(summary.intactPercent).toBeCloseTo((100 * 28) / 30);
    expect(summary.g2g.p50).toBe(50);
    expect(summary.longestFreezeMs).toBe(100);
  });

  it('takes the longest gap between frames as the freeze, the window edges included', () => {
    const shown = [...frames(1_000, 5, 100, 50), ...frames(2_000, 5, 100, 50)];
    expect(summarizeWindow(shown, { from: 1_000, to: 2_500, fps: 10 }).longestFreezeMs).toBe(600);
    // Nothing after 1 400 ms until the window closes at 3 000.
    expect(
      summarizeWindow(frames(1_000, 5, 100, 50), { from: 1_000, to: 3_000, fps: 10 }).longestFreezeMs,
    ).toBe(1_600);
    expect(summarizeWindow([], { from: 0, to: 1_000, fps: 10 })).toMatchObject({
      presented: 0,
      longestFreezeMs: 1_000,
    });
  });

  it('counts the frames the page did not see through the browser count', () => {
    const seen = frames(0, 10, 100, 50).filter((_, i) => i % 2 === 0);
    expect(summarizeWindow(seen, { from: 0, to: 1_000, fps: 10 }).presented).toBe(9);
  });
});

describe('inboundDelta', () => {
  it('subtracts every counter, peer connections included', () => {
    const reading = (n: number) =>
      ({ framesDecoded: 10 * n, packetsLost: n, peerConnections: n }) as unknown as InboundVideo;
    expect(inboundDelta(reading(1), reading(3))).toMatchObject({
      framesDecoded: 20,
      packetsLost: 2,
      peerConnections: 2,
    });
    expect(inboundDelta(reading(1), null)).toBeNull();
  });
});

describe('recoveredAfterMs', () => {
  const bound = { from: 0, to: 5_000, boundMs: 150 };

  it('is the start of the first second of frames within the bound', () => {
    const shown = [...frames(0, 10, 100, 400), ...frames(1_000, 20, 100, 100)];
    expect(recoveredAfterMs(shown, bound)).toBe(1_000);
    expect(recoveredAfterMs(frames(0, 50, 100, 100), bound)).toBe(0);
  });

  it('starts again after a late or damaged frame or a freeze', () => {
    const late = frames(0, 30, 100, 100).map((f, i) => (i === 5 ? { ...f, captured: f.shownAt - 300 } : f));
    expect(recoveredAfterMs(late, bound)).toBe(600);
    const damaged = frames(0, 30, 100, 100, [5]);
    expect(recoveredAfterMs(damaged, bound)).toBe(600);
    const frozen = [...frames(0, 5, 100, 100), ...frames(800, 20, 100, 100)];
    expect(recoveredAfterMs(frozen, bound)).toBe(800);
  });

  it('is null without a whole second within the bound', () => {
    expect(recoveredAfterMs(frames(0, 50, 100, 400), bound)).toBeNull();
    expect(recoveredAfterMs(frames(4_500, 5, 100, 100), bound)).toBeNull();
  });
});

describe('lateUntilMs', () => {
  const bound = { from: 0, to: 5_000, boundMs: 150 };

  it('is when the last frame over the bound was shown, or the last long freeze ended; 0 when none', () => {
    expect(lateUntilMs(frames(0, 50, 100, 100), bound)).toBe(0);
    // On time, then late for a second, then on time again: late until the last late frame.
    const spell = [
      ...frames(0, 10, 100, 100),
      ...frames(1_000, 10, 100, 400),
      ...frames(2_000, 30, 100, 100),
    ];
    expect(lateUntilMs(spell, bound)).toBe(1_900);
    // A freeze of 500 ms ends at the frame after it.
    const frozen = [...frames(0, 5, 100, 100), ...frames(900, 41, 100, 100)];
    expect(lateUntilMs(frozen, bound)).toBe(900);
    // Frozen to the end of the window: late until its end.
    expect(lateUntilMs(frames(0, 10, 100, 100), bound)).toBe(5_000);
    // An unreadable frame counts as late.
    expect(lateUntilMs(frames(0, 50, 100, 100, [12]), bound)).toBe(1_200);
  });
});

describe("the car's encoder bitrate from its telemetry", () => {
  it('reads video.bitrate from telemetry messages only', () => {
    const telemetry = (video: object | undefined) =>
      JSON.stringify({ type: 'telemetry', telemetry: { speed: 1, video } });
    expect(encoderKbps(telemetry({ bitrate: 420, maxBitrate: 600 }))).toBe(420);
    expect(encoderKbps(telemetry(undefined))).toBeNull();
    expect(encoderKbps(JSON.stringify({ type: 'state', telemetry: { video: { bitrate: 1 } } }))).toBeNull();
    expect(encoderKbps('{"type":"telemetry"')).toBeNull();
  });

  it("gives a window's lowest and median bitrate, nothing without telemetry", () => {
    const samples = [
      { at: 900, kbps: 100 },
      { at: 1_000, kbps: 600 },
      { at: 1_500, kbps: 300 },
      { at: 2_000, kbps: 500 },
      { at: 2_100, kbps: 50 },
    ];
    expect(encoderColumns(samples, { from: 1_000, to: 2_000 })).toEqual({
      encoder_kbps_min: 300,
      encoder_kbps_p50: 500,
    });
    expect(encoderColumns(samples, { from: 3_000, to: 4_000 })).toEqual({
      encoder_kbps_min: '',
      encoder_kbps_p50: '',
    });
  });
});
