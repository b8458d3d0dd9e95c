/**
 * The time now, read again every `intervalMs` (default: each second) while `ticking`: the clock of
 * countdowns. It is the browser's clock (`Date.now`), so tests drive it with fake timers. A page
 * the server rendered is hydrated at the server's time (`hydrateAt`), so that a countdown's text
 * matches the HTML; the clock is read again as soon as the page is live.
 */
import { useEffect, useState } from 'react';

let hydrationTime: number | undefined;

/** The server's time of the HTML being hydrated, until the hydration is done (`undefined`). */
export function hydrateAt(time: number | undefined): void {
  hydrationTime = time;
}

/** What a clock shows at its first render: the server's time while hydrating its HTML, else now. */
export function firstNow(): number {
  return hydrationTime ?? Date.now();
}

export function useNow(ticking = true, intervalMs = 1000): number {
  const [now, setNow] = useState(firstNow);
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
