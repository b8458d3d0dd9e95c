/**
 * Servo pulses straight from the Pi's GPIO pins with the pigpio daemon library (no PWM board):
 * one pin for the ESC, one for the steering servo. The GPIO factory is injected so tests can
 * record the pulse widths; on the Pi it is `pigpio`, loaded only when this backend is chosen.
 */
import { DEFAULT_PULSES, type DriveBackend, type PulseRange, pulseFor } from './backend.js';

/** The subset of pigpio's `Gpio` this backend uses. */
export interface ServoPin {
  /** Pulse width in µs, 500–2500, or 0 to stop pulsing. */
  servoWrite(pulseWidth: number): unknown;
}

export type GpioFactory = (pin: number) => ServoPin;

export interface PigpioConfig {
  /** BCM GPIO numbers. */
  steeringPin: number;
  throttlePin: number;
  steering: PulseRange;
  throttle: PulseRange;
}

export const DEFAULT_PIGPIO_CONFIG: PigpioConfig = {
  steeringPin: 13,
  throttlePin: 12,
  steering: DEFAULT_PULSES,
  throttle: DEFAULT_PULSES,
};

/** pigpio refuses anything outside 500–2500 µs. */
function servoRange(us: number): number {
  return Math.max(500, Math.min(2500, us));
}

export class PigpioBackend implements DriveBackend {
  private readonly steeringPin: ServoPin;
  private readonly throttlePin: ServoPin;

  constructor(
    gpio: GpioFactory,
    private readonly config: PigpioConfig = DEFAULT_PIGPIO_CONFIG,
  ) {
    this.throttlePin = gpio(config.throttlePin);
    this.steeringPin = gpio(config.steeringPin);
    this.neutral();
  }

  apply(throttle: number, steer: number): void {
    this.throttlePin.servoWrite(servoRange(pulseFor(throttle, this.config.throttle)));
    this.steeringPin.servoWrite(servoRange(pulseFor(steer, this.config.steering)));
  }

  neutral(): void {
    this.apply(0, 0);
  }

  /** Neutral pulses stay on: an ESC that loses its signal may do anything until its failsafe. */
  async close(): Promise<void> {
    this.neutral();
  }
}

/** `pigpio`'s GPIO pins, a native module installed only on the Pi (and needs root). */
export async function loadGpioFactory(): Promise<GpioFactory> {
  const moduleName = 'pigpio';
  let Gpio: { new (pin: number, options: { mode: number }): ServoPin; OUTPUT: number };
  try {
    const loaded = await import(moduleName);
    Gpio = (loaded.default ?? loaded).Gpio;
  } catch {
    throw new Error(
      'the pigpio drive needs the pigpio package: install it beside the agent, on the Pi `sudo npm install -g --prefix /usr/local pigpio` (docs/car.md)',
    );
  }
  return (pin) => new Gpio(pin, { mode: Gpio.OUTPUT });
}

/** Opens the real GPIO. */
export async function openPigpio(config: PigpioConfig): Promise<PigpioBackend> {
  return new PigpioBackend(await loadGpioFactory(), config);
}
