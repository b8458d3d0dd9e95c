import { describe, expect, it } from 'vitest';
import { formatNumber } from './number-format';

const intl = (value: number, language: string | undefined, min: number, max: number) =>
  new Intl.NumberFormat(language, { minimumFractionDigits: min, maximumFractionDigits: max }).format(value);

/** Integers around each grouping boundary, halves that round both ways, binary fractions near a half. */
const VALUES = [
  0,
  -0,
  1,
  7,
  9.5,
  10,
  99.995,
  999,
  1000,
  1001,
  9999.999,
  12_345,
  20_000,
  123_456.789,
  999_999.5,
  1_000_000,
  12_345_678.9,
  2 ** 53,
  0.005,
  0.015,
  0.125,
  0.285,
  1.005,
  1.045,
  8.0049,
  12.345,
  59.999,
  -0.001,
  -1234.5,
  -0.125,
  5e-7,
  1.5e-3,
  4.9999e-3,
  1e20,
  1e21,
  1e22,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

const DIGITS: [number, number][] = [
  [0, 0],
  [2, 2],
  [0, 3],
  [1, 2],
];

describe('formatNumber', () => {
  for (const language of ['en', 'fr']) {
    for (const [min, max] of DIGITS) {
      it(`writes what Intl writes in ${language}, ${min}–${max} fraction digits`, () => {
        for (const value of VALUES)
          expect(formatNumber(value, language, { min, max }), String(value)).toBe(
            intl(value, language, min, max),
          );
      });
    }
  }

  it('writes every lap time of a race as Intl does (hundredths from 0 to 200 s)', () => {
    for (let hundredths = 0; hundredths <= 20_000; hundredths += 1) {
      const seconds = hundredths / 100;
      for (const language of ['en', 'fr'])
        expect(formatNumber(seconds, language, { min: 2, max: 2 })).toBe(intl(seconds, language, 2, 2));
    }
  });

  it('groups French thousands with a narrow no-break space and writes a decimal comma', () => {
    expect(formatNumber(20_000.5, 'fr', { min: 2 })).toBe('20\u202f000,50');
    expect(formatNumber(20_000.5, 'en', { min: 2 })).toBe('20,000.50');
  });

  it('leaves any other language to Intl', () => {
    expect(formatNumber(1234.5, 'de', { min: 1 })).toBe('1.234,5');
    expect(formatNumber(1234.5, undefined, { min: 1 })).toBe(intl(1234.5, undefined, 1, 1));
  });
});
