/**
 * Numbers written in the page's language without `Intl` where the app's two languages are asked
 * for. The first `Intl.NumberFormat` (or `toLocaleString`) a page makes costs 60–220 ms on a phone
 * (Lighthouse's 4× slower CPU): V8 loads ICU's number data then, in one task nothing can split —
 * the leaderboards page's largest long task (issue 45 point 3), paid for a total and lap times.
 * English and French grouping and decimal signs are written here, and held to `Intl`'s own output
 * by number-format.test.ts; any other language, and numbers of 10^21 and more, go to `Intl`.
 */

const SIGNS: Record<string, { group: string; decimal: string }> = {
  en: { group: ',', decimal: '.' },
  // CLDR's French groups with a narrow no-break space (U+202F).
  fr: { group: '\u202f', decimal: ',' },
};

/** Beyond this a number's shortest form has an exponent and more digits than are worth writing here. */
const LARGEST = 1e21;

export interface FractionDigits {
  /** Fraction digits always written (0). */
  min?: number;
  /** Fraction digits at most (the larger of `min` and this). */
  max?: number;
}

/**
 * The whole and fraction digits of a number's shortest decimal form (what `String` writes, which
 * is what ICU rounds: 0.015 is "0.015", not the binary 0.01499…).
 */
function decimalDigits(magnitude: number): [string, string] {
  const [mantissa = '0', exponent = '0'] = String(magnitude).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  digits = digits.padEnd(point, '0');
  return [digits.slice(0, point), digits.slice(point)];
}

/** Adds one to a string of decimal digits. */
function increment(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i -= 1) {
    if (out[i] !== '9') {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
    out[i] = '0';
  }
  return `1${out.join('')}`;
}

/** `new Intl.NumberFormat(language, { minimumFractionDigits, maximumFractionDigits }).format(value)`. */
export function formatNumber(
  value: number,
  language: string | undefined,
  digits: FractionDigits = {},
): string {
  const min = digits.min ?? 0;
  const max = Math.max(min, digits.max ?? min);
  const signs = language === undefined ? undefined : SIGNS[language];
  if (!signs || !Number.isFinite(value) || Math.abs(value) >= LARGEST)
    return new Intl.NumberFormat(language, { minimumFractionDigits: min, maximumFractionDigits: max }).format(
      value,
    );
  let [whole, fraction] = decimalDigits(Math.abs(value));
  if (fraction.length > max) {
    // Half away from zero (Intl's halfExpand), on the magnitude.
    const up = (fraction[max] ?? '0') >= '5';
    fraction = fraction.slice(0, max);
    if (up) {
      const sum = increment(whole + fraction);
      whole = sum.slice(0, sum.length - max);
      fraction = sum.slice(sum.length - max);
    }
  }
  fraction = fraction.padEnd(min, '0');
  while (fraction.length > min && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, signs.group);
  const negative = value < 0 || Object.is(value, -0);
  return `${negative ? '-' : ''}${grouped}${fraction ? signs.decimal + fraction : ''}`;
}
