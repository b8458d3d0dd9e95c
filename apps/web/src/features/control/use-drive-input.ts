/**
 * Reads the three input devices of the control page and sends the merged drive (spec §7, §9):
 * keyboard (W/S/A/D and arrows, physical keys, kept from scrolling the page), gamepad (polled in
 * requestAnimationFrame while one is connected) and the on-screen joysticks, merged by
 * `mergeInputs`. The socket sends a `drive` only when the values change.
 *
 * Safety (docs/driving.md "Safety timers"): neutral is sent and every input forgotten on window blur, when the tab
 * is hidden, when a gamepad disconnects and when the page goes away; the gamepad is ignored until
 * the page is visible and focused again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ControlSocket } from '../../lib/control-socket';
import {
  type DriveInput,
  gamepadInput,
  isDriveKey,
  keyboardInput,
  mergeInputs,
  NEUTRAL,
} from '../../lib/input-merge';
import { useLatest } from '../../lib/use-latest';

export interface JoystickValues {
  throttle: number;
  steer: number;
}

/** Typing in a form control (the admin sliders, a text field) must not drive the car. */
function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

function firstGamepad(): Gamepad | null {
  const pads = typeof navigator.getGamepads === 'function' ? navigator.getGamepads() : [];
  for (const pad of pads) if (pad?.connected) return pad;
  return null;
}

const same = (a: DriveInput, b: DriveInput) => a.throttle === b.throttle && a.steer === b.steer;

export function useDriveInput(socket: ControlSocket | null, connected: boolean) {
  const socketRef = useLatest(socket);
  const pressed = useRef(new Set<string>());
  const sources = useRef({ keyboard: NEUTRAL, joystick: NEUTRAL, gamepad: NEUTRAL });
  const suspended = useRef(false);
  const [joystick, setJoystickState] = useState<JoystickValues>(NEUTRAL);
  const [merged, setMerged] = useState<DriveInput>(NEUTRAL);
  const [gamepadName, setGamepadName] = useState<string | null>(null);

  const push = useCallback(() => {
    const next = mergeInputs(sources.current);
    socketRef.current?.sendDrive(next.throttle, next.steer);
    setMerged((current) => (same(current, next) ? current : next));
  }, []);

  const neutralize = useCallback(() => {
    pressed.current.clear();
    sources.current = { keyboard: NEUTRAL, joystick: NEUTRAL, gamepad: NEUTRAL };
    setJoystickState(NEUTRAL);
    push();
  }, [push]);

  // A new connection hears the current values at once.
  useEffect(() => {
    if (connected) push();
  }, [connected, push]);

  const setJoystick = useCallback(
    (axis: keyof JoystickValues, value: number) => {
      const next = { ...sources.current.joystick, [axis]: value };
      sources.current = { ...sources.current, joystick: next };
      setJoystickState(next);
      push();
    },
    [push],
  );

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isDriveKey(event.code) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isEditable(event.target)) return;
      event.preventDefault();
      pressed.current.add(event.code);
      sources.current = { ...sources.current, keyboard: keyboardInput(pressed.current) };
      push();
    };
    const onKeyUp = (event: KeyboardEvent) => {
      if (!pressed.current.delete(event.code)) return;
      event.preventDefault();
      sources.current = { ...sources.current, keyboard: keyboardInput(pressed.current) };
      push();
    };
    const onBlur = () => {
      suspended.current = true;
      neutralize();
    };
    const onFocus = () => {
      suspended.current = document.visibilityState === 'hidden';
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        suspended.current = true;
        neutralize();
      } else {
        suspended.current = !document.hasFocus();
      }
    };
    // The gamepad is polled every frame, but only while one is connected: a loop that ran all
    // the time kept a phone's page waking 60 times a second for a pad it never had.
    let frame = 0;
    const poll = () => {
      const pad = firstGamepad();
      const next = pad && !suspended.current ? gamepadInput(pad) : NEUTRAL;
      if (!same(next, sources.current.gamepad)) {
        sources.current = { ...sources.current, gamepad: next };
        push();
      }
      frame = pad ? requestAnimationFrame(poll) : 0;
    };
    const startPolling = () => {
      if (frame === 0 && typeof requestAnimationFrame === 'function') frame = requestAnimationFrame(poll);
    };
    const onGamepadConnected = (event: GamepadEvent) => {
      setGamepadName(event.gamepad.id);
      startPolling();
    };
    const onGamepadDisconnected = () => {
      setGamepadName(firstGamepad()?.id ?? null);
      neutralize();
    };

    // One signal removes every listener below when the page goes away.
    const listening = new AbortController();
    const options = { signal: listening.signal };
    window.addEventListener('keydown', onKeyDown, options);
    window.addEventListener('keyup', onKeyUp, options);
    window.addEventListener('blur', onBlur, options);
    window.addEventListener('focus', onFocus, options);
    document.addEventListener('visibilitychange', onVisibility, options);
    window.addEventListener('gamepadconnected', onGamepadConnected, options);
    window.addEventListener('gamepaddisconnected', onGamepadDisconnected, options);

    // A pad the browser already exposes (used on this page before a remount) fires no event.
    if (firstGamepad()) startPolling();

    return () => {
      listening.abort();
      if (frame !== 0 && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(frame);
      pressed.current.clear();
      sources.current = { keyboard: NEUTRAL, joystick: NEUTRAL, gamepad: NEUTRAL };
      socketRef.current?.sendDrive(0, 0);
    };
  }, [push, neutralize]);

  return { merged, joystick, setJoystick, gamepadName };
}
