/**
 * PCA9685 16-channel PWM board over I²C (the board Donkey Car uses): the ESC and the steering
 * servo each sit on one channel. The bus is injected so tests can record the exact bytes; on the
 * Pi it is `i2c-bus`, loaded only when this backend is chosen.
 */
import { DEFAULT_PULSES, type DriveBackend, type PulseRange, pulseFor } from './backend.js';

/** The subset of `i2c-bus`'s synchronous API this backend uses. */
export interface I2cBus {
  writeByteSync(address: number, register: number, byte: number): void;
  readByteSync(address: number, register: number): number;
  closeSync?(): void;
}

export const PCA9685 = {
  MODE1: 0x00,
  MODE2: 0x01,
  LED0_ON_L: 0x06,
  PRESCALE: 0xfe,
  /** MODE1 bits. */
  RESTART: 0x80,
  AUTO_INCREMENT: 0x20,
  SLEEP: 0x10,
  ALLCALL: 0x01,
  /** MODE2: totem-pole outputs, what servos and ESCs expect. */
  OUTDRV: 0x04,
  OSCILLATOR_HZ: 25_000_000,
} as const;

export interface Pca9685Config {
  /** I²C bus number: 1 on every Raspberry Pi since the model B rev 2. */
  bus: number;
  /** 7-bit address; 0x40 unless the board's address jumpers are soldered. */
  address: number;
  /** PWM frequency for servos and ESCs, 40–200 Hz (50–60 usual). */
  frequencyHz: number;
  steering: { channel: number } & PulseRange;
  throttle: { channel: number } & PulseRange;
}

export const DEFAULT_PCA9685_CONFIG: Pca9685Config = {
  bus: 1,
  address: 0x40,
  frequencyHz: 60,
  steering: { channel: 1, ...DEFAULT_PULSES },
  throttle: { channel: 0, ...DEFAULT_PULSES },
};

/** PRESCALE register value for a PWM frequency (datasheet §7.3.5). */
export function prescaleFor(frequencyHz: number): number {
  const value = Math.round(PCA9685.OSCILLATOR_HZ / (4096 * frequencyHz)) - 1;
  return Math.min(0xff, Math.max(3, value));
}

/** The frequency the board really runs at, once the prescale is rounded. */
export function actualFrequency(prescale: number): number {
  return PCA9685.OSCILLATOR_HZ / (4096 * (prescale + 1));
}

/** Wakes the oscillator; the datasheet asks for 500 µs before RESTART. */
function pauseMicroseconds(us: number): void {
  const end = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < end) {
    // Busy wait: once at start-up, half a millisecond.
  }
}

export class Pca9685Backend implements DriveBackend {
  private readonly frequency: number;

  constructor(
    private readonly bus: I2cBus,
    private readonly config: Pca9685Config = DEFAULT_PCA9685_CONFIG,
    pause: (us: number) => void = pauseMicroseconds,
  ) {
    for (const { channel } of [config.steering, config.throttle]) {
      if (!Number.isInteger(channel) || channel < 0 || channel > 15) {
        throw new Error(`pca9685: channel ${channel} is not 0–15`);
      }
    }
    const prescale = prescaleFor(config.frequencyHz);
    this.frequency = actualFrequency(prescale);
    const { address } = config;
    // The prescale can only be written while the oscillator sleeps.
    bus.writeByteSync(address, PCA9685.MODE2, PCA9685.OUTDRV);
    bus.writeByteSync(address, PCA9685.MODE1, PCA9685.SLEEP | PCA9685.ALLCALL);
    bus.writeByteSync(address, PCA9685.PRESCALE, prescale);
    bus.writeByteSync(address, PCA9685.MODE1, PCA9685.ALLCALL);
    pause(500);
    bus.writeByteSync(address, PCA9685.MODE1, PCA9685.RESTART | PCA9685.AUTO_INCREMENT | PCA9685.ALLCALL);
    this.neutral();
  }

  /** Sets a channel's pulse: on at tick 0, off after `microseconds` (4096 ticks per period). */
  setPulse(channel: number, microseconds: number): void {
    const periodUs = 1_000_000 / this.frequency;
    const ticks = Math.max(0, Math.min(4095, Math.round((microseconds / periodUs) * 4096)));
    const register = PCA9685.LED0_ON_L + 4 * channel;
    const { address } = this.config;
    this.bus.writeByteSync(address, register, 0);
    this.bus.writeByteSync(address, register + 1, 0);
    this.bus.writeByteSync(address, register + 2, ticks & 0xff);
    this.bus.writeByteSync(address, register + 3, ticks >> 8);
  }

  apply(throttle: number, steer: number): void {
    this.setPulse(this.config.throttle.channel, pulseFor(throttle, this.config.throttle));
    this.setPulse(this.config.steering.channel, pulseFor(steer, this.config.steering));
  }

  neutral(): void {
    this.apply(0, 0);
  }

  async close(): Promise<void> {
    this.neutral();
    this.bus.closeSync?.();
  }
}

/** `i2c-bus`, a native module installed only on the Pi: the agent's drive and the doctor's check. */
export async function loadI2cBus(): Promise<{ openSync(bus: number): I2cBus }> {
  const moduleName = 'i2c-bus';
  try {
    const loaded = await import(moduleName);
    return loaded.default ?? loaded;
  } catch {
    throw new Error(
      'the pca9685 drive needs the i2c-bus package: install it beside the agent, on the Pi `sudo npm install -g --prefix /usr/local i2c-bus` (docs/car.md)',
    );
  }
}

/** Opens the real I²C bus. */
export async function openPca9685(config: Pca9685Config): Promise<Pca9685Backend> {
  const i2c = await loadI2cBus();
  return new Pca9685Backend(i2c.openSync(config.bus), config);
}
