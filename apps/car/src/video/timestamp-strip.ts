/**
 * A capture time (ms since the epoch, 48 bits) drawn as black/white blocks along the top rows of a
 * frame, so the glass-to-glass latency benchmark can read it back from the decoded video.
 *
 * Layout, left to right, one row of square blocks of `stripBlockSize(width)` px (11 at 640 px):
 * start [white, black], 48 data bits (most significant first, white = 1), 4 check bits (the XOR of
 * the twelve 4-bit nibbles of the value), stop [black, white]. Everything right of the strip in
 * those rows is left untouched.
 *
 * `decodeTimestamp` is pure and self-contained (no imports) so it can be copied into a web page.
 */

export const STRIP_DATA_BITS = 48;
/** start (2) + data (48) + check (4) + stop (2). */
export const STRIP_BLOCKS = 56;
const MAX_BLOCK = 12;

/** Block side in pixels for a frame `width` px wide (0 when the frame is too narrow). */
export function stripBlockSize(width: number): number {
  const size = Math.min(MAX_BLOCK, Math.floor(width / STRIP_BLOCKS));
  return size >= 2 ? size : 0;
}

function checkNibble(bits: readonly number[]): number {
  let check = 0;
  for (let i = 0; i < STRIP_DATA_BITS; i += 4) {
    check ^=
      ((bits[i] ?? 0) << 3) | ((bits[i + 1] ?? 0) << 2) | ((bits[i + 2] ?? 0) << 1) | (bits[i + 3] ?? 0);
  }
  return check;
}

function stripBits(timeMs: number): number[] {
  if (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs >= 2 ** STRIP_DATA_BITS) {
    throw new RangeError('timestamp strip: need an integer 0 ≤ time < 2^48');
  }
  const data: number[] = [];
  let rest = timeMs;
  for (let i = 0; i < STRIP_DATA_BITS; i++) {
    data.unshift(rest % 2);
    rest = Math.floor(rest / 2);
  }
  const check = checkNibble(data);
  return [1, 0, ...data, (check >> 3) & 1, (check >> 2) & 1, (check >> 1) & 1, check & 1, 0, 1];
}

/** Draws the strip for `timeMs` into the top rows of an RGBA frame (alpha set to 255). */
export function encodeTimestamp(rgba: Uint8Array | Uint8ClampedArray, width: number, timeMs: number): void {
  const size = stripBlockSize(width);
  if (size === 0) throw new RangeError(`timestamp strip: frame too narrow (${width} px)`);
  const bits = stripBits(timeMs);
  for (let y = 0; y < size; y++) {
    const row = y * width * 4;
    for (let b = 0; b < STRIP_BLOCKS; b++) {
      const v = bits[b] ? 255 : 0;
      let i = row + b * size * 4;
      for (let x = 0; x < size; x++, i += 4) {
        rgba[i] = v;
        rgba[i + 1] = v;
        rgba[i + 2] = v;
        rgba[i + 3] = 255;
      }
    }
  }
}

/**
 * Reads the capture time back from an RGBA frame (e.g. a video frame drawn to a canvas), or null
 * when there is no valid strip. Each block is judged by the mean luma of its central area against
 * mid-grey, so compression noise and blur at the block edges do not matter.
 */
export function decodeTimestamp(rgba: ArrayLike<number>, width: number, height: number): number | null {
  const size = Math.min(12, Math.floor(width / 56));
  if (size < 2 || height < size || rgba.length < width * size * 4) return null;
  const inset = Math.max(1, Math.floor(size / 4));
  const bits: number[] = [];
  for (let b = 0; b < 56; b++) {
    let sum = 0;
    let n = 0;
    for (let y = inset; y < size - inset; y++) {
      for (let x = b * size + inset; x < (b + 1) * size - inset; x++) {
        const i = (y * width + x) * 4;
        sum +=
          0.299 * (rgba[i] as number) + 0.587 * (rgba[i + 1] as number) + 0.114 * (rgba[i + 2] as number);
        n++;
      }
    }
    bits.push(sum / n >= 128 ? 1 : 0);
  }
  if (bits[0] !== 1 || bits[1] !== 0 || bits[54] !== 0 || bits[55] !== 1) return null;
  let value = 0;
  let check = 0;
  for (let i = 0; i < 48; i++) {
    const bit = bits[2 + i] as number;
    value = value * 2 + bit;
    check ^= bit << (3 - (i % 4));
  }
  const stored =
    ((bits[50] as number) << 3) |
    ((bits[51] as number) << 2) |
    ((bits[52] as number) << 1) |
    (bits[53] as number);
  return check === stored ? value : null;
}
