/**
 * Driving input (spec §7 "Control socket", §9 gamepad and keys): turns each input device into a
 * `{ throttle, steer }` pair in −1…1 and merges them by priority gamepad > joystick > keyboard.
 *
 * Merging is decided PER AXIS: each axis takes its value from the highest-priority source that is
 * not neutral (0) on that axis. An idle but connected gamepad therefore never blocks the keyboard,
 * and a driver may throttle with the on-screen joystick while steering with the keys.
 *
 * Keys are physical keys (`KeyboardEvent.code`): on an AZERTY keyboard the same places (Z Q S D)
 * drive the car.
 */
import { GAMEPAD_DEAD_ZONE } from '@telerace/protocol';

export interface DriveInput {
  throttle: number;
  steer: number;
}

export const NEUTRAL: DriveInput = Object.freeze({ throttle: 0, steer: 0 });

/** Key codes that drive the car; the control page keeps them from scrolling the page. */
export const DRIVE_KEYS = {
  forward: ['KeyW', 'ArrowUp'],
  backward: ['KeyS', 'ArrowDown'],
  left: ['KeyA', 'ArrowLeft'],
  right: ['KeyD', 'ArrowRight'],
} as const;

const ALL_DRIVE_KEYS: ReadonlySet<string> = new Set(Object.values(DRIVE_KEYS).flat());

export function isDriveKey(code: string): boolean {
  return ALL_DRIVE_KEYS.has(code);
}

/** Clamps to −1…1; anything that is not a finite number counts as 0. */
export function clampUnit(value: number): number {
  if (!Number.isFinite(value)) return 0;
  // `+ 0` turns −0 into 0 so results compare equal to NEUTRAL.
  return Math.min(1, Math.max(-1, value)) + 0;
}

const anyPressed = (pressed: ReadonlySet<string>, codes: readonly string[]) =>
  codes.some((code) => pressed.has(code));

/** W/↑ +1 and S/↓ −1 throttle, A/← −1 and D/→ +1 steer; opposite keys cancel each other. */
export function keyboardInput(pressedKeys: ReadonlySet<string>): DriveInput {
  const throttle =
    (anyPressed(pressedKeys, DRIVE_KEYS.forward) ? 1 : 0) -
    (anyPressed(pressedKeys, DRIVE_KEYS.backward) ? 1 : 0);
  const steer =
    (anyPressed(pressedKeys, DRIVE_KEYS.right) ? 1 : 0) - (anyPressed(pressedKeys, DRIVE_KEYS.left) ? 1 : 0);
  return { throttle: throttle + 0, steer: steer + 0 };
}

/**
 * Removes the dead zone and rescales what is left so the output is continuous: |v| ≤ dead zone
 * gives 0, and the rest maps linearly onto 0…1 (so just past the dead zone is just above 0, and
 * full deflection is still 1).
 */
export function applyDeadZone(value: number, deadZone: number = GAMEPAD_DEAD_ZONE): number {
  const v = clampUnit(value);
  const magnitude = Math.abs(v);
  if (magnitude <= deadZone) return 0;
  return Math.sign(v) * ((magnitude - deadZone) / (1 - deadZone));
}

/** The part of the Gamepad API the input needs (standard mapping). */
export interface GamepadLike {
  readonly axes: readonly number[];
  readonly buttons: readonly { readonly value: number; readonly pressed?: boolean }[];
  readonly connected?: boolean;
}

/** Standard-mapping indexes (https://w3c.github.io/gamepad/#remapping). */
export const GAMEPAD_MAPPING = { leftStickX: 0, leftTrigger: 6, rightTrigger: 7 } as const;

function triggerValue(gamepad: GamepadLike, index: number): number {
  const button = gamepad.buttons[index];
  if (!button) return 0;
  // Digital triggers report only `pressed`.
  const raw = button.value > 0 ? button.value : button.pressed ? 1 : 0;
  return Math.max(0, applyDeadZone(raw));
}

/**
 * Right trigger throttles, left trigger reverses (throttle = RT − LT), the left stick's horizontal
 * axis steers. The dead zone applies to the stick and to both triggers. No gamepad → neutral.
 */
export function gamepadInput(gamepad: GamepadLike | null | undefined): DriveInput {
  if (!gamepad || gamepad.connected === false) return { ...NEUTRAL };
  const throttle =
    triggerValue(gamepad, GAMEPAD_MAPPING.rightTrigger) - triggerValue(gamepad, GAMEPAD_MAPPING.leftTrigger);
  const steer = applyDeadZone(gamepad.axes[GAMEPAD_MAPPING.leftStickX] ?? 0);
  return { throttle: clampUnit(throttle), steer: clampUnit(steer) };
}

export interface InputSources {
  gamepad?: DriveInput | null;
  joystick?: DriveInput | null;
  keyboard?: DriveInput | null;
}

function pick(values: Array<number | undefined>): number {
  for (const value of values) {
    const v = clampUnit(value ?? 0);
    if (v !== 0) return v;
  }
  return 0;
}

/** Per axis: gamepad, else joystick, else keyboard — the first that is not neutral. Clamped to −1…1. */
export function mergeInputs({ gamepad, joystick, keyboard }: InputSources): DriveInput {
  const order = [gamepad, joystick, keyboard];
  return {
    throttle: pick(order.map((source) => source?.throttle)),
    steer: pick(order.map((source) => source?.steer)),
  };
}

export function isNeutral(input: DriveInput): boolean {
  return input.throttle === 0 && input.steer === 0;
}
