/**
 * The simulated car's steering assist: it steers toward a point a little ahead on the track's
 * centre line (in the direction of travel), so a driver holding only the throttle on a keyboard
 * goes round and completes laps. The driver's own steer is added on top (sim-car.ts clamps the
 * sum), so they can still overtake, cut wide or crash on purpose.
 *
 * The centre line is parametrised by its arc length `s` from the left end of the bottom straight,
 * counter-clockwise like the cars drive: bottom straight (+x), right bend, top straight (−x), left
 * bend.
 */
import { normalizeAngle } from './physics.js';
import type { Point, Pose, Track } from './track.js';

/** How far ahead on the centre line the assist aims, metres. */
export const LOOK_AHEAD_M = 0.8;
/** Steer per radian between the heading and the aim point (positive steer turns right). */
export const ASSIST_GAIN = 1.5;

export function centreLineLength(track: Track): number {
  return 2 * track.straight + 2 * Math.PI * track.radius;
}

/** The centre line's point at arc length `s` (any value: it wraps round). */
export function centreLinePoint(track: Track, s: number): Point {
  const { straight, radius } = track;
  const half = straight / 2;
  const bend = Math.PI * radius;
  const total = centreLineLength(track);
  let d = ((s % total) + total) % total;
  if (d < straight) return { x: -half + d, y: -radius };
  d -= straight;
  if (d < bend) {
    const angle = -Math.PI / 2 + d / radius;
    return { x: half + radius * Math.cos(angle), y: radius * Math.sin(angle) };
  }
  d -= bend;
  if (d < straight) return { x: half - d, y: radius };
  d -= straight;
  const angle = Math.PI / 2 + d / radius;
  return { x: -half + radius * Math.cos(angle), y: radius * Math.sin(angle) };
}

/** Arc length of the centre-line point nearest to (x, y). */
export function centreLineProgress(track: Track, x: number, y: number): number {
  const { straight, radius } = track;
  const half = straight / 2;
  const bend = Math.PI * radius;
  if (Math.abs(x) <= half) return y < 0 ? x + half : straight + bend + (half - x);
  if (x > half) return straight + (Math.atan2(y, x - half) + Math.PI / 2) * radius;
  let angle = Math.atan2(y, x + half);
  if (angle < 0) angle += 2 * Math.PI;
  return 2 * straight + bend + (angle - Math.PI / 2) * radius;
}

/**
 * The assist's steer for a car at `pose`, −1…1: proportional to the angle between the heading
 * and the look-ahead point (a left turn is negative steer).
 */
export function assistSteer(track: Track, pose: Pose, lookAhead = LOOK_AHEAD_M): number {
  const aim = centreLinePoint(track, centreLineProgress(track, pose.x, pose.y) + lookAhead);
  const error = normalizeAngle(Math.atan2(aim.y - pose.y, aim.x - pose.x) - pose.heading);
  return Math.max(-1, Math.min(1, -ASSIST_GAIN * error));
}
