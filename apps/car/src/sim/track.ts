/**
 * A closed 2-D track for the simulated car: a stadium (two straights joined by half circles) in
 * metres, x to the right and y up, centred on the origin. The car drives it counter-clockwise;
 * the start/finish line crosses the bottom straight at x = 0.
 */

export interface Point {
  x: number;
  y: number;
}

export interface Pose extends Point {
  /** Radians, counter-clockwise from +x. */
  heading: number;
}

export interface Track {
  /** Length of each straight, metres. */
  readonly straight: number;
  /** Radius of the centre line in the bends, metres. */
  readonly radius: number;
  /** Width of the driveable surface, metres. */
  readonly width: number;
  /** The finish line, from its inner end `a` to its outer end `b`: driving forward crosses it from a→b's right to its left. */
  readonly finishLine: { a: Point; b: Point };
  /** Where a car starts: behind the line, on the centre line, facing the direction of travel. */
  readonly start: Pose;
}

export interface TrackSize {
  straight: number;
  radius: number;
  width: number;
}

export const DEFAULT_TRACK_SIZE: TrackSize = { straight: 6, radius: 2, width: 1.2 };

export function createTrack(size: TrackSize = DEFAULT_TRACK_SIZE): Track {
  const { straight, radius, width } = size;
  if (!(straight >= 0 && radius > 0 && width > 0 && width < 2 * radius)) {
    throw new Error('track: need straight ≥ 0, radius > 0 and 0 < width < 2 × radius');
  }
  return {
    straight,
    radius,
    width,
    finishLine: { a: { x: 0, y: -radius + width / 2 }, b: { x: 0, y: -radius - width / 2 } },
    start: { x: -Math.min(1, straight / 4), y: -radius, heading: 0 },
  };
}

/** Distance from a point to the track's centre line. */
export function distanceFromCentre(track: Track, x: number, y: number): number {
  const half = track.straight / 2;
  const ax = Math.abs(x);
  if (ax <= half) return Math.abs(Math.abs(y) - track.radius);
  return Math.abs(Math.hypot(ax - half, y) - track.radius);
}

export function isOnTrack(track: Track, x: number, y: number): boolean {
  return distanceFromCentre(track, x, y) <= track.width / 2;
}

function cross(o: Point, p: Point, q: Point): number {
  return (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x);
}

/**
 * Whether a move from `from` to `to` crosses the finish line: 1 forward, −1 backward, 0 not at
 * all. Landing exactly on the line counts as crossing; leaving it does not, so one pass counts once.
 */
export function finishLineCrossing(track: Track, from: Point, to: Point): -1 | 0 | 1 {
  const { a, b } = track.finishLine;
  const sFrom = cross(a, b, from);
  const sTo = cross(a, b, to);
  const forward = sFrom < 0 && sTo >= 0;
  const backward = sFrom >= 0 && sTo < 0;
  if (!forward && !backward) return 0;
  // The move must cross the segment itself, not the line's extension.
  const tFrom = cross(from, to, a);
  const tTo = cross(from, to, b);
  if ((tFrom > 0 && tTo > 0) || (tFrom < 0 && tTo < 0)) return 0;
  return forward ? 1 : -1;
}
