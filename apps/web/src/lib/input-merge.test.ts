import { GAMEPAD_DEAD_ZONE } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import {
  applyDeadZone,
  clampUnit,
  type DriveInput,
  type GamepadLike,
  gamepadInput,
  isDriveKey,
  isNeutral,
  keyboardInput,
  mergeInputs,
  NEUTRAL,
} from './input-merge';

const keys = (...codes: string[]) => new Set(codes);

function pad({
  lt = 0,
  rt = 0,
  x = 0,
  y = 0,
}: {
  lt?: number;
  rt?: number;
  x?: number;
  y?: number;
}): GamepadLike {
  const buttons = Array.from({ length: 17 }, () => ({ value: 0, pressed: false }));
  buttons[6] = { value: lt, pressed: lt > 0.5 };
  buttons[7] = { value: rt, pressed: rt > 0.5 };
  return { axes: [x, y, 0, 0], buttons, connected: true };
}

describe('keyboardInput', () => {
  it.each([
    [[], 0, 0],
    [['KeyW'], 1, 0],
    [['ArrowUp'], 1, 0],
    [['KeyS'], -1, 0],
    [['ArrowDown'], -1, 0],
    [['KeyA'], 0, -1],
    [['ArrowLeft'], 0, -1],
    [['KeyD'], 0, 1],
    [['ArrowRight'], 0, 1],
    [['KeyW', 'KeyD'], 1, 1],
    [['KeyW', 'KeyA'], 1, -1],
    [['KeyS', 'KeyD'], -1, 1],
    [['KeyS', 'KeyA'], -1, -1],
    [['ArrowUp', 'ArrowRight'], 1, 1],
    [['KeyW', 'ArrowLeft'], 1, -1],
    [['KeyW', 'KeyS'], 0, 0],
    [['ArrowUp', 'ArrowDown'], 0, 0],
    [['KeyW', 'ArrowDown'], 0, 0],
    [['KeyA', 'KeyD'], 0, 0],
    [['ArrowLeft', 'ArrowRight'], 0, 0],
    [['KeyA', 'ArrowRight'], 0, 0],
    [['KeyW', 'KeyS', 'KeyD'], 0, 1],
    [['KeyW', 'KeyA', 'KeyD'], 1, 0],
    [['KeyW', 'KeyS', 'KeyA', 'KeyD'], 0, 0],
    [['KeyW', 'ArrowUp'], 1, 0],
    [['KeyA', 'ArrowLeft'], 0, -1],
    [['KeyQ', 'KeyE', 'Space'], 0, 0],
  ])('%j → throttle %d, steer %d', (pressed, throttle, steer) => {
    expect(keyboardInput(keys(...pressed))).toEqual({ throttle, steer });
  });

  it('never yields −0', () => {
    const input = keyboardInput(keys('KeyA', 'KeyD', 'KeyW', 'KeyS'));
    expect(Object.is(input.throttle, 0)).toBe(true);
    expect(Object.is(input.steer, 0)).toBe(true);
  });

  it('knows which keys drive', () => {
    for (const code of ['KeyW', 'KeyA', 'KeyS', 'KeyD', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']) {
      expect(isDriveKey(code)).toBe(true);
    }
    for (const code of ['KeyQ', 'Space', 'Enter', 'Tab', 'w']) expect(isDriveKey(code)).toBe(false);
  });
});

describe('applyDeadZone', () => {
  it('uses the spec dead zone of 0.15', () => {
    expect(GAMEPAD_DEAD_ZONE).toBe(0.15);
  });

  it.each([0, 0.01, 0.1, 0.149, 0.15, -0.15, -0.1])('%d is inside the dead zone', (value) => {
    expect(applyDeadZone(value)).toBe(0);
  });

  it('is continuous just past the dead zone and reaches ±1 at full deflection', () => {
    expect(applyDeadZone(0.1501)).toBeGreaterThan(0);
    expect(applyDeadZone(0.1501)).toBeLessThan(0.001);
    expect(applyDeadZone(-0.1501)).toBeLessThan(0);
    expect(applyDeadZone(-0.1501)).toBeGreaterThan(-0.001);
    expect(applyDeadZone(1)).toBe(1);
    expect(applyDeadZone(-1)).toBe(-1);
  });

  it('rescales linearly between the dead zone and full deflection', () => {
    expect(applyDeadZone(0.575)).toBeCloseTo(0.5, 10);
    expect(applyDeadZone(-0.575)).toBeCloseTo(-0.5, 10);
  });

  it('clamps out-of-range and non-finite values', () => {
    expect(applyDeadZone(1.7)).toBe(1);
    expect(applyDeadZone(-3)).toBe(-1);
    expect(applyDeadZone(Number.NaN)).toBe(0);
  });

  it('is monotonic', () => {
    let previous = -Infinity;
    for (let v = -1; v <= 1; v += 0.01) {
      const out = applyDeadZone(v);
      expect(out).toBeGreaterThanOrEqual(previous);
      previous = out;
    }
  });
});

describe('gamepadInput', () => {
  it('is neutral without a gamepad or with a disconnected one', () => {
    expect(gamepadInput(null)).toEqual(NEUTRAL);
    expect(gamepadInput(undefined)).toEqual(NEUTRAL);
    expect(gamepadInput({ ...pad({ rt: 1 }), connected: false })).toEqual(NEUTRAL);
  });

  it('throttles with the right trigger and reverses with the left one', () => {
    expect(gamepadInput(pad({ rt: 1 }))).toEqual({ throttle: 1, steer: 0 });
    expect(gamepadInput(pad({ lt: 1 }))).toEqual({ throttle: -1, steer: 0 });
    expect(gamepadInput(pad({ rt: 1, lt: 1 }))).toEqual({ throttle: 0, steer: 0 });
    expect(gamepadInput(pad({ rt: 1, lt: 0.575 })).throttle).toBeCloseTo(0.5, 10);
  });

  it('applies the dead zone to the triggers', () => {
    expect(gamepadInput(pad({ rt: 0.15 })).throttle).toBe(0);
    expect(gamepadInput(pad({ lt: 0.14 })).throttle).toBe(0);
    expect(gamepadInput(pad({ rt: 0.16 })).throttle).toBeGreaterThan(0);
    expect(gamepadInput(pad({ rt: 0.575 })).throttle).toBeCloseTo(0.5, 10);
  });

  it('steers with the left stick horizontal axis, with the dead zone', () => {
    expect(gamepadInput(pad({ x: -1 }))).toEqual({ throttle: 0, steer: -1 });
    expect(gamepadInput(pad({ x: 1 }))).toEqual({ throttle: 0, steer: 1 });
    expect(gamepadInput(pad({ x: 0.15 })).steer).toBe(0);
    expect(gamepadInput(pad({ x: -0.149 })).steer).toBe(0);
    expect(gamepadInput(pad({ x: 0.575 })).steer).toBeCloseTo(0.5, 10);
  });

  it('ignores the vertical stick axis', () => {
    expect(gamepadInput(pad({ y: -1 }))).toEqual(NEUTRAL);
  });

  it('reads a digital trigger from `pressed`', () => {
    const digital = pad({});
    const buttons = [...digital.buttons];
    buttons[7] = { value: 0, pressed: true };
    expect(gamepadInput({ ...digital, buttons }).throttle).toBe(1);
  });

  it('copes with a gamepad that has fewer buttons and axes', () => {
    expect(gamepadInput({ axes: [], buttons: [] })).toEqual(NEUTRAL);
  });
});

describe('mergeInputs (per axis: gamepad > joystick > keyboard, first non-neutral wins)', () => {
  const g: DriveInput = { throttle: 0.8, steer: -0.3 };
  const j: DriveInput = { throttle: -0.5, steer: 0.6 };
  const k: DriveInput = { throttle: 1, steer: 1 };

  it('is neutral with no source', () => {
    expect(mergeInputs({})).toEqual(NEUTRAL);
    expect(mergeInputs({ gamepad: null, joystick: null, keyboard: null })).toEqual(NEUTRAL);
    expect(mergeInputs({ gamepad: NEUTRAL, joystick: NEUTRAL, keyboard: NEUTRAL })).toEqual(NEUTRAL);
  });

  it.each([
    ['gamepad only', { gamepad: g }, g],
    ['joystick only', { joystick: j }, j],
    ['keyboard only', { keyboard: k }, k],
    ['gamepad beats joystick', { gamepad: g, joystick: j }, g],
    ['gamepad beats keyboard', { gamepad: g, keyboard: k }, g],
    ['joystick beats keyboard', { joystick: j, keyboard: k }, j],
    ['gamepad beats both', { gamepad: g, joystick: j, keyboard: k }, g],
    ['an idle gamepad lets the joystick through', { gamepad: NEUTRAL, joystick: j, keyboard: k }, j],
    [
      'idle gamepad and joystick let the keyboard through',
      { gamepad: NEUTRAL, joystick: NEUTRAL, keyboard: k },
      k,
    ],
  ])('%s', (_name, sources, expected) => {
    expect(mergeInputs(sources)).toEqual(expected);
  });

  it('decides each axis on its own', () => {
    expect(
      mergeInputs({ gamepad: { throttle: 0.8, steer: 0 }, keyboard: { throttle: 0, steer: -1 } }),
    ).toEqual({
      throttle: 0.8,
      steer: -1,
    });
    expect(
      mergeInputs({ joystick: { throttle: 0, steer: 0.4 }, keyboard: { throttle: -1, steer: 1 } }),
    ).toEqual({
      throttle: -1,
      steer: 0.4,
    });
    expect(
      mergeInputs({
        gamepad: { throttle: 0, steer: 0.2 },
        joystick: { throttle: 0.3, steer: 0.9 },
        keyboard: { throttle: 1, steer: 1 },
      }),
    ).toEqual({ throttle: 0.3, steer: 0.2 });
  });

  it('clamps every value to −1…1 and treats NaN as neutral', () => {
    expect(mergeInputs({ gamepad: { throttle: 3, steer: -7 } })).toEqual({ throttle: 1, steer: -1 });
    expect(
      mergeInputs({ gamepad: { throttle: Number.NaN, steer: 0 }, keyboard: { throttle: -1, steer: 0 } }),
    ).toEqual({ throttle: -1, steer: 0 });
  });
});

describe('helpers', () => {
  it('clampUnit', () => {
    expect(clampUnit(0.5)).toBe(0.5);
    expect(clampUnit(2)).toBe(1);
    expect(clampUnit(-2)).toBe(-1);
    expect(clampUnit(Number.POSITIVE_INFINITY)).toBe(0);
    expect(Object.is(clampUnit(-0), 0)).toBe(true);
  });

  it('isNeutral', () => {
    expect(isNeutral(NEUTRAL)).toBe(true);
    expect(isNeutral({ throttle: 0, steer: 0.1 })).toBe(false);
  });
});
