/**
 * Whether the page is live in the browser: false while the server renders a page and while the
 * browser hydrates that HTML, true from the render after (and at once in a page the browser
 * rendered itself). What depends on the visitor's browser alone — their time zone, their cookies —
 * is drawn only then, so that the hydrated page matches the server's HTML.
 */
import { useSyncExternalStore } from 'react';

const NOTHING_CHANGES = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    NOTHING_CHANGES,
    () => true,
    () => false,
  );
}

/**
 * Options for a date or time shown to the visitor: in their own time zone once the page is live,
 * in UTC (and saying so) where only the server's clock is known — its HTML and that HTML's
 * hydration — so that both draw the same text.
 */
export function useTimeZoneOptions(): Intl.DateTimeFormatOptions {
  return useHydrated() ? {} : SERVER_TIME_ZONE;
}
const SERVER_TIME_ZONE: Intl.DateTimeFormatOptions = { timeZone: 'UTC', timeZoneName: 'short' };
