import { describe, expect, it } from 'vitest';
import { decodeTimestamp, encodeTimestamp, stripBlockSize } from './timestamp-strip.js';

const W = 640;
const H = 480;

function grey(width: number, height: number, level = 90): Uint8ClampedArray {
  return new Uint8ClampedArray(width * height * 4).fill(level);
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function addNoise(rgba: Uint8ClampedArray, amplitude: number, seed: number): void {
  const r = rng(seed);
  for (let i = 0; i < rgba.length; i++) {
    if (i % 4 !== 3) rgba[i] = (rgba[i] as number) + Math.round((r() * 2 - 1) * amplitude);
  }
}

/** Box blur of radius `r` over the top `rows` rows (each channel). */
function blur(rgba: Uint8ClampedArray, width: number, rows: number, r: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let n = 0;
        for (let dy = -r; dy <= r; dy++) {
          for (let dx = -r; dx <= r; dx++) {
            const yy = y + dy;
            const xx = x + dx;
            if (yy < 0 || xx < 0 || xx >= width) continue;
            sum += rgba[(yy * width + xx) * 4 + c] as number;
            n++;
          }
        }
        out[(y * width + x) * 4 + c] = Math.round(sum / n);
      }
    }
  }
  return out;
}

const times = [0, 1, 1_764_113_280_123, 2 ** 48 - 1, 0xaaaa_aaaa_aaaa, 0x5555_5555_5555];

describe('timestamp strip', () => {
  it('uses blocks of up to 12 px that fit the width', () => {
    expect(stripBlockSize(640)).toBe(11);
    expect(stripBlockSize(1280)).toBe(12);
    expect(stripBlockSize(100)).toBe(0);
  });

  it.each(times)('round-trips %d', (t) => {
    const frame = grey(W, H);
    encodeTimestamp(frame, W, t);
    expect(decodeTimestamp(frame, W, H)).toBe(t);
  });

  it('round-trips at other sizes', () => {
    for (const [w, h] of [
      [320, 240],
      [1280, 720],
    ] as const) {
      const frame = grey(w, h);
      encodeTimestamp(frame, w, 1_764_113_280_123);
      expect(decodeTimestamp(frame, w, h)).toBe(1_764_113_280_123);
    }
  });

  it('survives ±40 noise on every pixel', () => {
    for (const [k, t] of times.entries()) {
      const frame = grey(W, H);
      encodeTimestamp(frame, W, t);
      addNoise(frame, 40, k + 1);
      expect(decodeTimestamp(frame, W, H)).toBe(t);
    }
  });

  it('survives a blurred, noisy image', () => {
    const t = 1_764_113_280_123;
    const frame = grey(W, H, 200);
    encodeTimestamp(frame, W, t);
    const blurred = blur(frame, W, 16, 2);
    addNoise(blurred, 40, 7);
    expect(decodeTimestamp(blurred, W, H)).toBe(t);
  });

  it('returns null when there is no strip or it is corrupted', () => {
    expect(decodeTimestamp(grey(W, H), W, H)).toBeNull();
    expect(decodeTimestamp(grey(W, H, 255), W, H)).toBeNull();
    const frame = grey(W, H);
    encodeTimestamp(frame, W, 123_456_789);
    // Flip one data block (bit 10): the check bits no longer match.
    for (let y = 0; y < 11; y++) {
      for (let x = 12 * 11; x < 13 * 11; x++) {
        const i = (y * W + x) * 4;
        const v = (frame[i] as number) > 127 ? 0 : 255;
        frame[i] = v;
        frame[i + 1] = v;
        frame[i + 2] = v;
      }
    }
    expect(decodeTimestamp(frame, W, H)).toBeNull();
    expect(decodeTimestamp(new Uint8ClampedArray(10), W, H)).toBeNull();
  });

  it('refuses times that do not fit 48 bits', () => {
    expect(() => encodeTimestamp(grey(W, H), W, -1)).toThrow(RangeError);
    expect(() => encodeTimestamp(grey(W, H), W, 2 ** 48)).toThrow(RangeError);
    expect(() => encodeTimestamp(grey(W, H), W, 1.5)).toThrow(RangeError);
  });
});
