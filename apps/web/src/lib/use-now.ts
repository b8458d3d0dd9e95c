/**
 * The time now, read again every `intervalMs` (default: each second) while `ticking`: the clock of
 * countdowns. It is the browser's clock (`Date.now`), so tests drive it with fake timers. A page
 * the server draws shows the server's time of drawing (RenderTime, given by entry-server.tsx), and
 * the browser hydrates it at that same time (`hydrateAt`), so that a countdown's text matches the
 * HTML; the clock is read again as soon as the page is live.
 */
import { createContext, useContext, useEffect, useState } from 'react';

/** The server's time while it draws a page (each page its own: several are drawn at once). */
export const RenderTime = createContext<number | undefined>(undefined);

let hydrationTime: number | undefined;

/** The server's time of the HTML being hydrated, until the hydration is done (`undefined`). */
export function hydrateAt(time: number | undefined): void {
  hydrationTime = time;
}

/** What a clock shows at its first render: the server's time while drawing or hydrating its HTML, else now. */
export function useFirstNow(): number {
  return useContext(RenderTime) ?? hydrationTime ?? Date.now();
}

export function useNow(ticking = true, intervalMs = 1000): number {
  const [now, setNow] = useState(useFirstNow());
  useEffect(() => {
    if (!ticking) {
      if (hydrationTime === undefined) setNow(Date.now());
      return;
    }
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs]);
  return now;
}
