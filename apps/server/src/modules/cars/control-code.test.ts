import { CONTROL_CODE_ALPHABET, CONTROL_CODE_LENGTH } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { newControlCode } from './control-code.js';

describe('control codes', () => {
  it('have the configured length and use only the unambiguous uppercase alphabet', () => {
    for (let i = 0; i < 200; i += 1) {
      const code = newControlCode();
      expect(code).toHaveLength(CONTROL_CODE_LENGTH);
      for (const char of code) expect(CONTROL_CODE_ALPHABET).toContain(char);
      expect(code).toBe(code.toUpperCase());
      expect(code).not.toMatch(/[01OIL]/);
    }
  });

  it('draw every character uniformly', () => {
    const counts = new Map<string, number>();
    const codes = 6000;
    for (let i = 0; i < codes; i += 1) {
      for (const char of newControlCode()) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(CONTROL_CODE_ALPHABET.length);
    const expected = (codes * CONTROL_CODE_LENGTH) / CONTROL_CODE_ALPHABET.length;
    // Chi-square with 30 degrees of freedom: 59.7 is the 0.1% critical value.
    let chiSquare = 0;
    for (const count of counts.values()) chiSquare += (count - expected) ** 2 / expected;
    expect(chiSquare).toBeLessThan(59.7);
  });
});
