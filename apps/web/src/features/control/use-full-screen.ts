/**
 * Full screen as the driving surface (issue 25): the stage (the video with every overlay and, on
 * a touch screen, both joysticks) takes the whole screen, so a driver keeps everything needed to
 * drive and race.
 * - `element`: the browser's element full screen. On a touch screen the phone is then turned to
 *   landscape where the browser lets a page lock it (`screen.orientation.lock`; most desktops and
 *   some phones refuse: the page works in either orientation).
 * - `viewport`: browsers without element full screen (Safari on iPhone full-screens a <video>
 *   only, which would leave the sticks and overlays behind): the stage covers the viewport with
 *   CSS, the page under it does not scroll, and Escape or the same button leaves.
 */
import { type RefObject, useCallback, useEffect, useState } from 'react';

export type FullScreenKind = 'element' | 'viewport';

export interface FullScreen {
  kind: FullScreenKind;
  active: boolean;
  toggle: () => void;
}

/** `lock` is missing from TypeScript's DOM types (not every browser has it). */
type LockableOrientation = ScreenOrientation & {
  lock?: (orientation: 'landscape') => Promise<void>;
  unlock?: () => void;
};

function orientation(): LockableOrientation | undefined {
  return (typeof screen === 'undefined' ? undefined : screen.orientation) as LockableOrientation | undefined;
}

export function useFullScreen(
  stageRef: RefObject<HTMLElement | null>,
  { lockLandscape }: { lockLandscape: boolean },
): FullScreen {
  const [kind] = useState<FullScreenKind>(() =>
    document.fullscreenEnabled === true ? 'element' : 'viewport',
  );
  const [elementActive, setElementActive] = useState(false);
  const [viewportActive, setViewportActive] = useState(false);

  useEffect(() => {
    const onChange = () => {
      const active = document.fullscreenElement !== null && document.fullscreenElement === stageRef.current;
      setElementActive(active);
      if (!active) orientation()?.unlock?.();
    };
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, [stageRef]);

  useEffect(() => {
    if (!viewportActive) return;
    const root = document.documentElement;
    const overflow = root.style.overflow;
    root.style.overflow = 'hidden';
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setViewportActive(false);
    };
    window.addEventListener('keydown', onKey);
    return () => {
      root.style.overflow = overflow;
      window.removeEventListener('keydown', onKey);
    };
  }, [viewportActive]);

  const toggle = useCallback(() => {
    if (kind === 'viewport') {
      setViewportActive((active) => !active);
      return;
    }
    const stage = stageRef.current;
    if (!stage) return;
    if (document.fullscreenElement) {
      document.exitFullscreen().catch(() => undefined);
      return;
    }
    stage
      .requestFullscreen()
      .then(() => (lockLandscape ? orientation()?.lock?.('landscape') : undefined))
      // Refused (no user gesture, an embedding policy, no orientation lock): nothing to undo.
      .catch(() => undefined);
  }, [kind, stageRef, lockLandscape]);

  return { kind, active: kind === 'element' ? elementActive : viewportActive, toggle };
}
