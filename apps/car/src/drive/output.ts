/**
 * Shaping of a drive command on the car (pure): the admin's speed limits and steering trim are
 * applied here, on the car itself, so a compromised browser or server cannot exceed them; then a
 * slew limiter smooths the result before it reaches the motors.
 */
import { CAR_CONFIG_LIMITS, type CarConfig } from '@telerace/protocol';

export interface DriveCommand {
  /** −1 full reverse … 1 full forward. */
  throttle: number;
  /** −1 full left … 1 full right. */
  steer: number;
}

export const NEUTRAL: DriveCommand = Object.freeze({ throttle: 0, steer: 0 });

/** The steering offset at trim ±50 (the extreme of the admin's slider): trim/100 by default. */
export const DEFAULT_TRIM_MAX = 0.5;

/** Anything that is not a finite number is treated as neutral: a garbled command must not drive. */
export function clampUnit(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(-1, value));
}

function clampInt(value: number, min: number, max: number, fallback: number): number {
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}

/**
 * Applies the car's configuration to a command: throttle > 0 is scaled by the forward speed
 * percent, < 0 by the backward one; the trim adds `trimValue / 50 × trimMax` to the steer; every
 * value is clamped to −1…1 (and the configuration itself to its allowed ranges).
 */
export function shapeCommand(
  command: DriveCommand,
  config: CarConfig,
  trimMax: number = DEFAULT_TRIM_MAX,
): DriveCommand {
  const { speedPercent, trim } = CAR_CONFIG_LIMITS;
  const forward = clampInt(config.forwardSpeedPercent, speedPercent.min, speedPercent.max, speedPercent.min);
  const backward = clampInt(
    config.backwardSpeedPercent,
    speedPercent.min,
    speedPercent.max,
    speedPercent.min,
  );
  const trimValue = clampInt(config.trimValue, trim.min, trim.max, 0);
  const trimOffset = (trimValue / trim.max) * clampInt(trimMax, 0, 1, DEFAULT_TRIM_MAX);

  const throttle = clampUnit(command.throttle);
  const scaled = throttle * ((throttle >= 0 ? forward : backward) / 100);
  const steer = clampUnit(clampUnit(command.steer) + trimOffset);
  return { throttle: clampUnit(scaled) + 0, steer: steer + 0 };
}

export interface SlewRates {
  /** Largest change of throttle per second away from neutral (1 = full scale). */
  throttlePerSecond: number;
  /** Largest change of steer per second away from neutral. */
  steerPerSecond: number;
}

export const DEFAULT_SLEW_RATES: SlewRates = { throttlePerSecond: 4, steerPerSecond: 8 };

/**
 * Moves one value toward a target. Only moving away from neutral is limited: getting closer to
 * zero (braking, straightening) happens at once, because a slow stop is never the safer choice.
 * Reversing direction therefore drops to zero at once, then ramps up on the other side.
 */
export function slewStep(current: number, target: number, maxDelta: number): number {
  if (target === current) return target;
  const towardNeutral = Math.abs(target) <= Math.abs(current) && Math.sign(target) !== -Math.sign(current);
  if (towardNeutral) return target;
  const from = Math.sign(target) === -Math.sign(current) ? 0 : current;
  if (Math.abs(target - from) <= maxDelta) return target;
  return from + Math.sign(target - from) * maxDelta;
}

/**
 * Smooths commands over time; `reset()` is the immediate neutral the deadman needs. The clock only
 * runs while ramping: the first step after a settled output moves by one `firstStepMs` worth, so a
 * long idle period never counts as time to ramp.
 */
export class SlewLimiter {
  private output: DriveCommand = NEUTRAL;
  private lastMs: number | undefined;

  constructor(
    private readonly rates: SlewRates = DEFAULT_SLEW_RATES,
    private readonly firstStepMs = 20,
  ) {}

  /** The command to apply at `nowMs` for the wanted `target`. */
  update(target: DriveCommand, nowMs: number): DriveCommand {
    const goal = { throttle: clampUnit(target.throttle), steer: clampUnit(target.steer) };
    const dt = (this.lastMs === undefined ? this.firstStepMs : Math.max(0, nowMs - this.lastMs)) / 1000;
    this.output = {
      throttle: slewStep(this.output.throttle, goal.throttle, this.rates.throttlePerSecond * dt),
      steer: slewStep(this.output.steer, goal.steer, this.rates.steerPerSecond * dt),
    };
    this.lastMs = this.isSettled(goal) ? undefined : nowMs;
    return this.output;
  }

  /** True once the output has reached `target` (the control loop stops stepping). */
  isSettled(target: DriveCommand): boolean {
    return (
      this.output.throttle === clampUnit(target.throttle) && this.output.steer === clampUnit(target.steer)
    );
  }

  reset(): void {
    this.output = NEUTRAL;
    this.lastMs = undefined;
  }

  get current(): DriveCommand {
    return this.output;
  }
}
