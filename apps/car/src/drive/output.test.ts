import { type CarConfig, DEFAULT_CAR_CONFIG } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { clampUnit, SlewLimiter, shapeCommand, slewStep } from './output.js';

const config = (overrides: Partial<CarConfig> = {}): CarConfig => ({ ...DEFAULT_CAR_CONFIG, ...overrides });

describe('clampUnit', () => {
  it('clamps to −1…1 and treats non-finite values as neutral', () => {
    expect(clampUnit(0.3)).toBe(0.3);
    expect(clampUnit(1.5)).toBe(1);
    expect(clampUnit(-7)).toBe(-1);
    expect(clampUnit(Number.NaN)).toBe(0);
    expect(clampUnit(Number.POSITIVE_INFINITY)).toBe(0);
    expect(clampUnit(Number.NEGATIVE_INFINITY)).toBe(0);
  });
});

describe('shapeCommand', () => {
  it('passes a command through unchanged at 100 % and no trim', () => {
    expect(shapeCommand({ throttle: 0.5, steer: -0.25 }, config())).toEqual({ throttle: 0.5, steer: -0.25 });
  });

  it('scales forward throttle by the forward percent only', () => {
    const c = config({ forwardSpeedPercent: 40, backwardSpeedPercent: 80 });
    expect(shapeCommand({ throttle: 1, steer: 0 }, c).throttle).toBeCloseTo(0.4);
    expect(shapeCommand({ throttle: 0.5, steer: 0 }, c).throttle).toBeCloseTo(0.2);
  });

  it('scales reverse throttle by the backward percent only', () => {
    const c = config({ forwardSpeedPercent: 40, backwardSpeedPercent: 80 });
    expect(shapeCommand({ throttle: -1, steer: 0 }, c).throttle).toBeCloseTo(-0.8);
    expect(shapeCommand({ throttle: -0.5, steer: 0 }, c).throttle).toBeCloseTo(-0.4);
  });

  it('clamps out-of-range throttle and steer before scaling', () => {
    expect(shapeCommand({ throttle: 3, steer: -9 }, config({ forwardSpeedPercent: 50 }))).toEqual({
      throttle: 0.5,
      steer: -1,
    });
    expect(shapeCommand({ throttle: -3, steer: 9 }, config())).toEqual({ throttle: -1, steer: 1 });
  });

  it('turns NaN into neutral', () => {
    expect(shapeCommand({ throttle: Number.NaN, steer: Number.NaN }, config())).toEqual({
      throttle: 0,
      steer: 0,
    });
  });

  it('offsets the steer by trim/100 to the right and to the left', () => {
    expect(shapeCommand({ throttle: 0, steer: 0 }, config({ trimValue: 50 })).steer).toBeCloseTo(0.5);
    expect(shapeCommand({ throttle: 0, steer: 0 }, config({ trimValue: -20 })).steer).toBeCloseTo(-0.2);
    expect(shapeCommand({ throttle: 0, steer: 0.3 }, config({ trimValue: 10 })).steer).toBeCloseTo(0.4);
  });

  it('clamps the trimmed steer to −1…1', () => {
    expect(shapeCommand({ throttle: 0, steer: 0.9 }, config({ trimValue: 30 })).steer).toBe(1);
    expect(shapeCommand({ throttle: 0, steer: -0.9 }, config({ trimValue: -30 })).steer).toBe(-1);
  });

  it('honours a configured trim range', () => {
    expect(shapeCommand({ throttle: 0, steer: 0 }, config({ trimValue: 50 }), 0.2).steer).toBeCloseTo(0.2);
  });

  it('clamps a configuration outside the admin limits (a bad server cannot exceed them)', () => {
    const c = { forwardSpeedPercent: 500, backwardSpeedPercent: 5, trimValue: 400 } as CarConfig;
    expect(shapeCommand({ throttle: 1, steer: 0 }, c)).toEqual({ throttle: 1, steer: 0.5 });
    expect(shapeCommand({ throttle: -1, steer: 0 }, c).throttle).toBeCloseTo(-0.2);
    const broken = { forwardSpeedPercent: Number.NaN, backwardSpeedPercent: 100, trimValue: Number.NaN };
    expect(shapeCommand({ throttle: 1, steer: 0 }, broken)).toEqual({ throttle: 0.2, steer: 0 });
  });
});

describe('slewStep', () => {
  it('limits a move away from neutral', () => {
    expect(slewStep(0, 1, 0.25)).toBe(0.25);
    expect(slewStep(0.5, 1, 0.25)).toBe(0.75);
    expect(slewStep(-0.5, -1, 0.25)).toBe(-0.75);
  });

  it('lands exactly on the target when it is within reach', () => {
    expect(slewStep(0.1, 0.3, 0.25)).toBe(0.3);
  });

  it('goes toward neutral at once', () => {
    expect(slewStep(1, 0, 0.01)).toBe(0);
    expect(slewStep(1, 0.2, 0.01)).toBe(0.2);
    expect(slewStep(-1, -0.5, 0.01)).toBe(-0.5);
  });

  it('drops to zero at once when reversing, then ramps on the other side', () => {
    expect(slewStep(1, -1, 0.25)).toBe(-0.25);
    expect(slewStep(-0.8, 0.1, 0.25)).toBe(0.1);
  });
});

describe('SlewLimiter', () => {
  it('ramps throttle at 4/s and steer at 8/s', () => {
    const slew = new SlewLimiter({ throttlePerSecond: 4, steerPerSecond: 8 }, 20);
    expect(slew.update({ throttle: 1, steer: 1 }, 0)).toEqual({ throttle: 0.08, steer: 0.16 });
    const at100 = slew.update({ throttle: 1, steer: 1 }, 100);
    expect(at100.throttle).toBeCloseTo(0.48);
    expect(at100.steer).toBeCloseTo(0.96);
    expect(slew.update({ throttle: 1, steer: 1 }, 120)).toEqual({ throttle: 0.56, steer: 1 });
    expect(slew.isSettled({ throttle: 1, steer: 1 })).toBe(false);
    expect(slew.update({ throttle: 1, steer: 1 }, 300)).toEqual({ throttle: 1, steer: 1 });
    expect(slew.isSettled({ throttle: 1, steer: 1 })).toBe(true);
  });

  it('does not count idle time as ramp time', () => {
    const slew = new SlewLimiter({ throttlePerSecond: 4, steerPerSecond: 8 }, 20);
    slew.update({ throttle: 0, steer: 0 }, 0);
    expect(slew.update({ throttle: 1, steer: 0 }, 10_000).throttle).toBeCloseTo(0.08);
  });

  it('releases toward neutral at once', () => {
    const slew = new SlewLimiter({ throttlePerSecond: 4, steerPerSecond: 8 }, 20);
    slew.update({ throttle: 1, steer: -1 }, 0);
    slew.update({ throttle: 1, steer: -1 }, 1000);
    expect(slew.update({ throttle: 0, steer: 0 }, 1001)).toEqual({ throttle: 0, steer: 0 });
  });

  it('reset() is an immediate neutral', () => {
    const slew = new SlewLimiter();
    slew.update({ throttle: 1, steer: 1 }, 0);
    slew.update({ throttle: 1, steer: 1 }, 1000);
    slew.reset();
    expect(slew.current).toEqual({ throttle: 0, steer: 0 });
  });

  it('clamps its target', () => {
    const slew = new SlewLimiter({ throttlePerSecond: 1000, steerPerSecond: 1000 });
    expect(slew.update({ throttle: 5, steer: Number.NaN }, 0)).toEqual({ throttle: 1, steer: 0 });
  });
});
