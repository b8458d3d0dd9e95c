/**
 * The time now, read again every `intervalMs` (default: each second) while `ticking`: the clock of
 * countdowns. It is the browser's clock (`Date.now`), so tests drive it with fake timers.
 */
import { useEffect, useState } from 'react';

export function useNow(ticking = true, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs]);
  return now;
}
