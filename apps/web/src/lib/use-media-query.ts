/**
 * Whether a CSS media query matches, kept current (matchMedia's change events). Where the browser
 * has no matchMedia (tests' jsdom) nothing matches.
 */
import { useCallback, useSyncExternalStore } from 'react';

/** A phone held sideways: the styles' `phone-landscape` variant (styles.css). */
export const PHONE_LANDSCAPE = '(orientation: landscape) and (max-height: 31.25rem)';
/**
 * A screen held upright (a phone, a tablet, a tall window): the video is short and the page's
 * width, so the race card goes under it rather than over it (issue 41).
 */
export const PORTRAIT = '(orientation: portrait)';
/** A touch screen is among the pointers (a phone, a tablet, a touch laptop). */
export const TOUCH_SCREEN = '(any-pointer: coarse)';

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      if (typeof window.matchMedia !== 'function') return () => {};
      const list = window.matchMedia(query);
      list.addEventListener('change', listener);
      return () => list.removeEventListener('change', listener);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => (typeof window.matchMedia === 'function' ? window.matchMedia(query).matches : false),
    // A page rendered by the server (and its hydration) is drawn for a wide screen; CSS does the rest.
    () => false,
  );
}
