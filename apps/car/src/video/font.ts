/**
 * A tiny 5×7 pixel font for the video overlay: digits, '.', 'm', '/', 's', ':', '-' and space.
 * Each glyph is 7 rows of 5 bits, most significant bit on the left.
 */
const GLYPHS: Record<string, readonly number[]> = {
  '0': [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
  '1': [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
  '2': [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
  '3': [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
  '4': [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
  '5': [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
  '6': [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
  '7': [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
  '8': [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
  '9': [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
  '.': [0, 0, 0, 0, 0, 0b01100, 0b01100],
  m: [0, 0, 0b11010, 0b10101, 0b10101, 0b10101, 0b10101],
  '/': [0b00001, 0b00010, 0b00010, 0b00100, 0b01000, 0b01000, 0b10000],
  s: [0, 0, 0b01111, 0b10000, 0b01110, 0b00001, 0b11110],
  ':': [0, 0b01100, 0b01100, 0, 0b01100, 0b01100, 0],
  '-': [0, 0, 0, 0b11111, 0, 0, 0],
  ' ': [0, 0, 0, 0, 0, 0, 0],
};

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;

/** Width in pixels of `text` drawn at `scale` (one blank column between glyphs). */
export function textWidth(text: string, scale: number): number {
  return text.length === 0 ? 0 : (text.length * (GLYPH_WIDTH + 1) - 1) * scale;
}

/**
 * Draws `text` into an RGBA frame with its top-left corner at (x, y), each font pixel a
 * `scale`×`scale` square of colour `rgb` (0xRRGGBB). Unknown characters draw as spaces; pixels
 * outside the frame are skipped.
 */
export function drawText(
  rgba: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  text: string,
  x: number,
  y: number,
  scale: number,
  rgb: number,
): void {
  const r = (rgb >> 16) & 255;
  const g = (rgb >> 8) & 255;
  const b = rgb & 255;
  for (let c = 0; c < text.length; c++) {
    const glyph = GLYPHS[text[c] as string];
    if (!glyph) continue;
    const gx = x + c * (GLYPH_WIDTH + 1) * scale;
    for (let row = 0; row < GLYPH_HEIGHT; row++) {
      const bits = glyph[row] as number;
      if (bits === 0) continue;
      for (let col = 0; col < GLYPH_WIDTH; col++) {
        if (!(bits & (1 << (GLYPH_WIDTH - 1 - col)))) continue;
        const px = gx + col * scale;
        const py = y + row * scale;
        for (let yy = Math.max(0, py); yy < Math.min(height, py + scale); yy++) {
          for (let xx = Math.max(0, px); xx < Math.min(width, px + scale); xx++) {
            const i = (yy * width + xx) * 4;
            rgba[i] = r;
            rgba[i + 1] = g;
            rgba[i + 2] = b;
            rgba[i + 3] = 255;
          }
        }
      }
    }
  }
}
