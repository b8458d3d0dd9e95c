/**
 * Kinematic bicycle model of a 1/10 RC car: throttle sets a target speed the car accelerates
 * toward (or brakes to), drag slows it when the throttle is released, steering turns it around
 * the rear axle. Off the track the grass limits speed and adds drag. Positive steer turns right.
 */
import { isOnTrack, type Pose, type Track } from './track.js';

export interface CarPhysics {
  /** Metres between the axles. */
  wheelbase: number;
  /** Steering angle at steer = ±1, radians. */
  maxSteerAngle: number;
  /** Metres per second at full forward throttle. */
  maxSpeed: number;
  /** Metres per second at full reverse. */
  maxReverseSpeed: number;
  /** m/s² when speeding up toward the target. */
  acceleration: number;
  /** m/s² when the target is slower or opposite (braking). */
  braking: number;
  /** m/s² of rolling drag when the throttle is released. */
  drag: number;
  /** Highest speed off the track, m/s, and the extra drag there (m/s²). */
  offTrackMaxSpeed: number;
  offTrackDrag: number;
}

export const DEFAULT_PHYSICS: CarPhysics = {
  wheelbase: 0.26,
  maxSteerAngle: (30 * Math.PI) / 180,
  maxSpeed: 3,
  maxReverseSpeed: 1.5,
  acceleration: 4,
  braking: 8,
  drag: 1.5,
  offTrackMaxSpeed: 0.6,
  offTrackDrag: 4,
};

export interface BodyState extends Pose {
  /** Metres per second, negative when reversing. */
  speed: number;
}

function approach(value: number, target: number, maxDelta: number): number {
  if (Math.abs(target - value) <= maxDelta) return target;
  return value + Math.sign(target - value) * maxDelta;
}

/** Advances the car by `dt` seconds (pure). Inputs are clamped to −1…1. */
export function stepBody(
  state: BodyState,
  input: { throttle: number; steer: number },
  dt: number,
  track: Track,
  physics: CarPhysics = DEFAULT_PHYSICS,
): BodyState {
  const throttle = Math.max(-1, Math.min(1, input.throttle || 0));
  const steer = Math.max(-1, Math.min(1, input.steer || 0));
  const onTrack = isOnTrack(track, state.x, state.y);

  let target = throttle >= 0 ? throttle * physics.maxSpeed : throttle * physics.maxReverseSpeed;
  let rate: number;
  if (throttle === 0) rate = physics.drag;
  else if (target * state.speed < 0 || Math.abs(target) < Math.abs(state.speed)) rate = physics.braking;
  else rate = physics.acceleration;
  if (!onTrack) {
    target = Math.max(-physics.offTrackMaxSpeed, Math.min(physics.offTrackMaxSpeed, target));
    rate += physics.offTrackDrag;
  }
  const speed = approach(state.speed, target, rate * dt);

  // Integrate the pose with the average speed of the step.
  const v = (state.speed + speed) / 2;
  const yawRate = (v / physics.wheelbase) * Math.tan(steer * physics.maxSteerAngle);
  const heading = normalizeAngle(state.heading - yawRate * dt);
  const mid = state.heading - (yawRate * dt) / 2;
  return {
    x: state.x + v * Math.cos(mid) * dt,
    y: state.y + v * Math.sin(mid) * dt,
    heading,
    speed,
  };
}

export function normalizeAngle(angle: number): number {
  const a = angle % (2 * Math.PI);
  if (a > Math.PI) return a - 2 * Math.PI;
  if (a <= -Math.PI) return a + 2 * Math.PI;
  return a;
}
