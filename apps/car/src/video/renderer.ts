/**
 * The simulated car's camera: a pure TypeScript raster renderer that draws the track top-down,
 * centred on the car and rotated so the car points up, into one preallocated RGBA buffer reused
 * for every frame.
 *
 * The track is rasterised once into a mask at world resolution (`cellsPerMetre`); each frame then
 * walks the screen with an affine transform (two additions per pixel) and looks every pixel's
 * colour up in the mask through a palette, writing 32-bit words.
 */
import { createTrack, DEFAULT_TRACK_SIZE, distanceFromCentre, type Pose, type Track } from '../sim/track.js';
import { drawText, GLYPH_HEIGHT, textWidth } from './font.js';
import { encodeTimestamp, stripBlockSize } from './timestamp-strip.js';

export interface RendererOptions {
  width?: number;
  height?: number;
  track?: Track;
  /** Screen pixels per metre (zoom). */
  pixelsPerMetre?: number;
  /** Resolution of the precomputed track mask, cells per metre. */
  cellsPerMetre?: number;
}

export interface FrameInfo extends Pose {
  /** Metres per second (shown in the overlay; its absolute value). */
  speed: number;
  /** Frame number shown in the overlay. */
  frame: number;
  /** When given, the capture time (ms since epoch) is drawn as a timestamp strip in the top rows. */
  captureMs?: number;
}

/** Car body colour (0xRRGGBB); the pixel at the centre of every frame has it. */
export const CAR_COLOUR = 0xe0201c;

// Mask cell kinds, indexes into the palette.
const GRASS_DARK = 0;
const GRASS_LIGHT = 1;
const ASPHALT = 2;
const EDGE = 3;
const FINISH_WHITE = 4;
const FINISH_BLACK = 5;
const CENTRE_DASH = 6;
const PALETTE_RGB = [0x2f7d32, 0x388e3c, 0x55585c, 0xf2f2f2, 0xffffff, 0x111111, 0xc9c9c9];

/** Metres of grass around the track inside the mask (beyond it, plain dark grass). */
const MASK_MARGIN = 5;
const GRASS_TILE = 0.5;
const EDGE_WIDTH = 0.06;
const FINISH_HALF = 0.12;
const FINISH_CHECK = 0.08;
const DASH = 0.3;

/** 0xRRGGBB → a 32-bit word whose bytes in memory are R, G, B, 255 on this machine. */
function packRgba(rgb: number): number {
  const bytes = new Uint8Array([(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255, 255]);
  return new Uint32Array(bytes.buffer)[0] as number;
}

interface TrackMask {
  cells: Uint8Array;
  cols: number;
  rows: number;
  minX: number;
  minY: number;
  cellsPerMetre: number;
}

function buildMask(track: Track, cellsPerMetre: number): TrackMask {
  const halfX = track.straight / 2 + track.radius + track.width / 2 + MASK_MARGIN;
  const halfY = track.radius + track.width / 2 + MASK_MARGIN;
  const cols = Math.ceil(2 * halfX * cellsPerMetre);
  const rows = Math.ceil(2 * halfY * cellsPerMetre);
  const cells = new Uint8Array(cols * rows);
  const halfStraight = track.straight / 2;
  const halfWidth = track.width / 2;
  for (let r = 0; r < rows; r++) {
    const y = -halfY + (r + 0.5) / cellsPerMetre;
    for (let c = 0; c < cols; c++) {
      const x = -halfX + (c + 0.5) / cellsPerMetre;
      const d = distanceFromCentre(track, x, y);
      let kind: number;
      if (d > halfWidth) {
        kind = (Math.floor(x / GRASS_TILE) + Math.floor(y / GRASS_TILE)) & 1 ? GRASS_LIGHT : GRASS_DARK;
      } else if (d > halfWidth - EDGE_WIDTH) {
        kind = EDGE;
      } else if (y < 0 && Math.abs(x) < FINISH_HALF) {
        const check = Math.floor((x + FINISH_HALF) / FINISH_CHECK) + Math.floor(y / FINISH_CHECK);
        kind = check & 1 ? FINISH_BLACK : FINISH_WHITE;
      } else if (d < 0.025) {
        // Dashed centre line: dashes along the straights and around the bends.
        const along =
          Math.abs(x) <= halfStraight ? x : Math.atan2(y, Math.abs(x) - halfStraight) * track.radius;
        kind = Math.floor(along / DASH) & 1 ? ASPHALT : CENTRE_DASH;
      } else {
        kind = ASPHALT;
      }
      cells[r * cols + c] = kind;
    }
  }
  return { cells, cols, rows, minX: -halfX, minY: -halfY, cellsPerMetre };
}

export interface Renderer {
  readonly width: number;
  readonly height: number;
  /** The frame buffer, reused (overwritten) by every `render` call. */
  readonly frame: Uint8ClampedArray;
  render(info: FrameInfo): Uint8ClampedArray;
}

export function createRenderer(options: RendererOptions = {}): Renderer {
  const width = options.width ?? 640;
  const height = options.height ?? 480;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 16 && height >= 16)) {
    throw new RangeError('renderer: width and height must be integers ≥ 16');
  }
  const track = options.track ?? createTrack(DEFAULT_TRACK_SIZE);
  const pixelsPerMetre = options.pixelsPerMetre ?? 80;
  const mask = buildMask(track, options.cellsPerMetre ?? 50);
  const palette = new Uint32Array(PALETTE_RGB.map(packRgba));
  const outside = palette[GRASS_DARK] as number;
  const carWord = packRgba(CAR_COLOUR);
  const glassWord = packRgba(0x1a2a3a);
  const blackWord = packRgba(0x000000);

  const frame = new Uint8ClampedArray(width * height * 4);
  const words = new Uint32Array(frame.buffer, frame.byteOffset, width * height);

  const carW = Math.max(3, Math.round(0.2 * pixelsPerMetre)) | 1;
  const carL = Math.max(5, Math.round(0.4 * pixelsPerMetre)) | 1;
  const digitScale = Math.max(1, Math.floor(height / 80));
  const smallScale = Math.max(1, Math.floor(digitScale / 2));

  function drawBackground(pose: Pose): void {
    const { cells, cols, rows, minX, minY, cellsPerMetre } = mask;
    const k = cellsPerMetre / pixelsPerMetre;
    const sin = Math.sin(pose.heading);
    const cos = Math.cos(pose.heading);
    // Mask coordinates of screen pixel (0, 0), and their steps along a row and down a column.
    // Screen right is the car's right (heading − 90°); screen up is the car's heading.
    const dxCol = sin * k;
    const dyCol = -cos * k;
    const dxRow = -cos * k;
    const dyRow = -sin * k;
    const cx = (pose.x - minX) * cellsPerMetre;
    const cy = (pose.y - minY) * cellsPerMetre;
    const sx = -(width / 2 - 0.5);
    const sy = -(height / 2 - 0.5);
    let rowX = cx + sx * dxCol + sy * dxRow;
    let rowY = cy + sx * dyCol + sy * dyRow;
    let i = 0;
    for (let py = 0; py < height; py++) {
      let mx = rowX;
      let my = rowY;
      for (let px = 0; px < width; px++) {
        if (mx >= 0 && my >= 0 && mx < cols && my < rows) {
          words[i] = palette[cells[(my | 0) * cols + (mx | 0)] as number] as number;
        } else {
          words[i] = outside;
        }
        i++;
        mx += dxCol;
        my += dyCol;
      }
      rowX += dxRow;
      rowY += dyRow;
    }
  }

  function fillRect(x0: number, y0: number, w: number, h: number, word: number): void {
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
      words.fill(word, y * width + Math.max(0, x0), y * width + Math.min(width, x0 + w));
    }
  }

  function drawCar(): void {
    const x0 = Math.floor(width / 2) - (carW >> 1);
    const y0 = Math.floor(height / 2) - (carL >> 1);
    fillRect(x0, y0, carW, carL, carWord);
    // A windscreen near the front (top), well clear of the centre pixel.
    const glassH = Math.max(1, Math.round(carL / 8));
    fillRect(x0 + 1, y0 + Math.round(carL / 8), carW - 2, glassH, glassWord);
  }

  function drawOverlay(info: FrameInfo): void {
    const margin = 2 * digitScale;
    const speed = `${Math.abs(info.speed).toFixed(2)} m/s`;
    const textH = GLYPH_HEIGHT * digitScale;
    const y = height - margin - textH;
    // Dark backing box so the digits stay readable over any background.
    fillRect(
      margin - digitScale,
      y - digitScale,
      textWidth(speed, digitScale) + 2 * digitScale,
      textH + 2 * digitScale,
      blackWord,
    );
    drawText(frame, width, height, speed, margin, y, digitScale, 0xffffff);
    const counter = String(info.frame);
    const top = stripBlockSize(width) + margin;
    drawText(
      frame,
      width,
      height,
      counter,
      width - margin - textWidth(counter, smallScale),
      top,
      smallScale,
      0xffff00,
    );
  }

  return {
    width,
    height,
    frame,
    render(info: FrameInfo): Uint8ClampedArray {
      drawBackground(info);
      drawCar();
      drawOverlay(info);
      if (info.captureMs !== undefined && stripBlockSize(width) > 0)
        encodeTimestamp(frame, width, info.captureMs);
      return frame;
    },
  };
}
