import { describe, expect, it } from 'vitest';
import { pulseFor } from './backend.js';
import { DEFAULT_PCA9685_CONFIG, type I2cBus, Pca9685Backend, prescaleFor } from './pca9685.js';
import { PigpioBackend } from './pigpio.js';

type Write = [address: number, register: number, byte: number];

function fakeBus() {
  const writes: Write[] = [];
  const bus: I2cBus & { writes: Write[]; closed: boolean } = {
    writes,
    closed: false,
    writeByteSync: (address, register, byte) => {
      writes.push([address, register, byte]);
    },
    readByteSync: () => 0,
    closeSync() {
      this.closed = true;
    },
  };
  return bus;
}

const hex = (writes: Write[]) =>
  writes.map(([a, r, b]) => `${a.toString(16)}:${r.toString(16)}=${b.toString(16)}`);

describe('pulseFor', () => {
  it('maps −1…1 onto min…centre…max, asymmetric ranges included', () => {
    const range = { minUs: 1000, centerUs: 1400, maxUs: 2000 };
    expect(pulseFor(0, range)).toBe(1400);
    expect(pulseFor(1, range)).toBe(2000);
    expect(pulseFor(-1, range)).toBe(1000);
    expect(pulseFor(0.5, range)).toBe(1700);
    expect(pulseFor(-0.5, range)).toBe(1200);
    expect(pulseFor(7, range)).toBe(2000);
    expect(pulseFor(Number.NaN, range)).toBe(1400);
  });

  it('supports a reversed servo (min above max)', () => {
    expect(pulseFor(1, { minUs: 2000, centerUs: 1500, maxUs: 1000 })).toBe(1000);
  });
});

describe('PCA9685 backend', () => {
  it('computes the prescale from the 25 MHz oscillator', () => {
    expect(prescaleFor(50)).toBe(121);
    expect(prescaleFor(60)).toBe(101);
  });

  it('initialises: sleep, prescale, wake, restart with auto-increment, then neutral pulses', () => {
    const bus = fakeBus();
    const pauses: number[] = [];
    new Pca9685Backend(bus, { ...DEFAULT_PCA9685_CONFIG, frequencyHz: 50 }, (us) => pauses.push(us));
    expect(hex(bus.writes.slice(0, 6))).toEqual([
      '40:1=4', // MODE2: totem pole
      '40:0=11', // MODE1: sleep | allcall
      '40:fe=79', // PRESCALE 121 → 50 Hz
      '40:0=1', // MODE1: wake
      '40:0=a1', // MODE1: restart | auto-increment | allcall
      '40:6=0', // LED0_ON_L (throttle, channel 0)
    ]);
    expect(pauses).toEqual([500]);
    // Neutral: 1500 µs at 50.03 Hz = 307 ticks (0x133) on channel 0 and channel 1.
    expect(hex(bus.writes.slice(5))).toEqual([
      '40:6=0',
      '40:7=0',
      '40:8=33',
      '40:9=1',
      '40:a=0',
      '40:b=0',
      '40:c=33',
      '40:d=1',
    ]);
  });

  it('writes the pulses of a command on the configured channels and address', () => {
    const bus = fakeBus();
    const backend = new Pca9685Backend(
      bus,
      {
        bus: 1,
        address: 0x41,
        frequencyHz: 60,
        throttle: { channel: 2, minUs: 1000, centerUs: 1500, maxUs: 2000 },
        steering: { channel: 15, minUs: 1100, centerUs: 1500, maxUs: 1900 },
      },
      () => {},
    );
    bus.writes.length = 0;
    backend.apply(1, -1);
    // 60 Hz → prescale 101 → 59.84 Hz: 2000 µs = 490 ticks (0x1ea), 1100 µs = 270 ticks (0x10e).
    expect(hex(bus.writes)).toEqual([
      '41:e=0',
      '41:f=0',
      '41:10=ea',
      '41:11=1',
      '41:42=0',
      '41:43=0',
      '41:44=e',
      '41:45=1',
    ]);
  });

  it('goes neutral and releases the bus on close', async () => {
    const bus = fakeBus();
    const backend = new Pca9685Backend(bus, DEFAULT_PCA9685_CONFIG, () => {});
    backend.apply(1, 1);
    bus.writes.length = 0;
    await backend.close();
    // 1500 µs at 59.84 Hz = 368 ticks (0x170).
    expect(bus.writes.filter(([, r]) => r === 0x08 || r === 0x0c).map(([, , b]) => b)).toEqual([0x70, 0x70]);
    expect(bus.closed).toBe(true);
  });

  it('refuses a channel outside 0–15', () => {
    const config = {
      ...DEFAULT_PCA9685_CONFIG,
      steering: { ...DEFAULT_PCA9685_CONFIG.steering, channel: 16 },
    };
    expect(() => new Pca9685Backend(fakeBus(), config, () => {})).toThrow(/channel 16/);
  });
});

describe('pigpio backend', () => {
  function setup() {
    const writes: string[] = [];
    const backend = new PigpioBackend(
      (pin) => ({ servoWrite: (us: number) => writes.push(`${pin}:${us}`) }),
      {
        throttlePin: 12,
        steeringPin: 13,
        throttle: { minUs: 1000, centerUs: 1500, maxUs: 2000 },
        steering: { minUs: 1200, centerUs: 1450, maxUs: 1700 },
      },
    );
    return { writes, backend };
  }

  it('starts with neutral pulses on both pins', () => {
    expect(setup().writes).toEqual(['12:1500', '13:1450']);
  });

  it('writes the pulse widths of a command', () => {
    const { writes, backend } = setup();
    writes.length = 0;
    backend.apply(0.5, -1);
    backend.apply(-1, 0.2);
    expect(writes).toEqual(['12:1750', '13:1200', '12:1000', '13:1500']);
  });

  it('keeps neutral pulses on when closing', async () => {
    const { writes, backend } = setup();
    backend.apply(1, 1);
    writes.length = 0;
    await backend.close();
    expect(writes).toEqual(['12:1500', '13:1450']);
  });
});
