/**
 * The time now, read again every `intervalMs` (default: each second) while `ticking`: the clock of
 * countdowns. It is the browser's clock (`Date.now`), so tests drive it with fake timers. A page
 * the server draws shows the server's time of drawing (RenderTime, given by entry-server.tsx), and
 * the browser hydrates it — every part of it, however late a part is hydrated — at that same time
 * (`drawnAt`), so that a countdown's text matches the HTML; the clock is read again once live.
 */
import { createContext, useContext, useEffect, useState } from 'react';
import { useHydrated } from './use-hydrated';

/** The server's time while it draws a page (each page its own: several are drawn at once). */
export const RenderTime = createContext<number | undefined>(undefined);

let pageDrawnAt: number | undefined;

/** The server's time of drawing the page this browser hydrates (main.tsx, from the page's state). */
export function drawnAt(time: number): void {
  pageDrawnAt = time;
}

/** What a clock shows at its first render: the server's time while drawing or hydrating its HTML, else now. */
export function useFirstNow(): number {
  const serverTime = useContext(RenderTime);
  const live = useHydrated();
  if (serverTime !== undefined) return serverTime;
  return !live && pageDrawnAt !== undefined ? pageDrawnAt : Date.now();
}

export function useNow(ticking = true, intervalMs = 1000): number {
  const [now, setNow] = useState(useFirstNow());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs]);
  return now;
}
