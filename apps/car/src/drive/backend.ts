/** The one interface every drive backend (simulator, PCA9685 board, pigpio) implements. */
import type { Telemetry } from '@telerace/protocol';

export interface DriveBackend {
  /** Drive with values already shaped and clamped to −1…1 (throttle forward > 0, steer right > 0). */
  apply(throttle: number, steer: number): void;
  /** Centre the steering and stop the motor, at once. */
  neutral(): void;
  close(): Promise<void>;
  /** What the backend knows of the car for telemetry (the simulator knows speed and battery). */
  telemetry?(): Telemetry;
  /**
   * Calls `listener` with the time (epoch ms) of each forward crossing of the finish line that
   * starts a new lap, for a backend that knows (the simulator; a real car with a lap sensor).
   */
  onPass?(listener: (at: number) => void): void;
}

export type DriveKind = 'sim' | 'pca9685' | 'pigpio';
export const DRIVE_KINDS: readonly DriveKind[] = ['sim', 'pca9685', 'pigpio'];

/** Pulse widths of one servo or ESC channel, in microseconds. */
export interface PulseRange {
  minUs: number;
  centerUs: number;
  maxUs: number;
}

export const DEFAULT_PULSES: PulseRange = { minUs: 1000, centerUs: 1500, maxUs: 2000 };

/**
 * Maps −1…1 to a pulse width: 0 → centre, 1 → max, −1 → min. A reversed servo is configured by
 * swapping min and max. The result is rounded to whole microseconds.
 */
export function pulseFor(value: number, range: PulseRange): number {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(-1, value)) : 0;
  const span = v >= 0 ? range.maxUs - range.centerUs : range.centerUs - range.minUs;
  return Math.round(range.centerUs + v * span);
}
