import { describe, expect, it } from 'vitest';
import { createTrack } from '../sim/track.js';
import { CAR_COLOUR, createRenderer } from './renderer.js';
import { decodeTimestamp } from './timestamp-strip.js';

const track = createTrack();
const start = { ...track.start, speed: 0, frame: 0 };

function pixel(frame: Uint8ClampedArray, width: number, x: number, y: number): number {
  const i = (y * width + x) * 4;
  return ((frame[i] as number) << 16) | ((frame[i + 1] as number) << 8) | (frame[i + 2] as number);
}

function differs(a: Uint8ClampedArray, b: Uint8ClampedArray, from = 0, to = a.length): number {
  let n = 0;
  for (let i = from; i < to; i++) if (a[i] !== b[i]) n++;
  return n;
}

describe('renderer', () => {
  it('draws a 640×480 RGBA frame by default, into one reused buffer', () => {
    const r = createRenderer({ track });
    const a = r.render(start);
    expect(a.length).toBe(640 * 480 * 4);
    expect(r.render({ ...start, frame: 1 })).toBe(a);
    expect(a.every((v, i) => i % 4 !== 3 || v === 255)).toBe(true);
  });

  it('honours width and height, and refuses nonsense', () => {
    const r = createRenderer({ track, width: 320, height: 240 });
    expect(r.render(start).length).toBe(320 * 240 * 4);
    expect(() => createRenderer({ width: 0 })).toThrow(RangeError);
  });

  it('puts the car colour at the centre pixel, whatever the pose', () => {
    const r = createRenderer({ track });
    for (const pose of [track.start, { x: 4, y: 1, heading: 2 }, { x: -30, y: 40, heading: -1 }]) {
      const f = r.render({ ...pose, speed: 1, frame: 3 });
      expect(pixel(f, 640, 320, 240)).toBe(CAR_COLOUR);
    }
  });

  it('shows track, grass and the finish line around the start', () => {
    const r = createRenderer({ track });
    const f = r.render(start);
    const colours = new Set<number>();
    for (let y = 20; y < 400; y += 4) for (let x = 0; x < 640; x += 4) colours.add(pixel(f, 640, x, y));
    expect(colours.has(0x55585c)).toBe(true); // asphalt
    expect(colours.has(0x2f7d32) || colours.has(0x388e3c)).toBe(true); // grass
    expect(colours.has(0x111111)).toBe(true); // finish checks
  });

  it('moves the picture when the car moves or turns', () => {
    const r = createRenderer({ track });
    const a = new Uint8ClampedArray(r.render(start));
    const moved = r.render({ ...start, x: start.x + 0.3 });
    expect(differs(a, moved)).toBeGreaterThan(10_000);
    const b = new Uint8ClampedArray(moved);
    const turned = r.render({ ...start, heading: 0.5 });
    expect(differs(a, turned)).toBeGreaterThan(10_000);
    expect(differs(b, turned)).toBeGreaterThan(10_000);
  });

  it('changes the speed digits (bottom overlay) when the speed changes', () => {
    const r = createRenderer({ track });
    const bottom = 640 * 400 * 4;
    const a = new Uint8ClampedArray(r.render({ ...start, speed: 0 }));
    const b = r.render({ ...start, speed: 2.47 });
    expect(differs(a, b, bottom)).toBeGreaterThan(50);
    expect(differs(a, b, 0, bottom)).toBe(0);
  });

  it('changes the frame counter, and draws a decodable timestamp strip when asked', () => {
    const r = createRenderer({ track });
    const a = new Uint8ClampedArray(r.render({ ...start, frame: 1 }));
    expect(differs(a, r.render({ ...start, frame: 2 }))).toBeGreaterThan(0);
    const f = r.render({ ...start, frame: 2, captureMs: 1_764_113_280_123 });
    expect(decodeTimestamp(f, 640, 480)).toBe(1_764_113_280_123);
  });
});
