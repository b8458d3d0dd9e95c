/** How race times read (spec §9): lap times in seconds with 2 decimals, the race clock as mm:ss. */
import { formatNumber } from '../../lib/number-format';

/** "12.34" from 12 345 ms (rounded to the hundredth), "—" when there is no lap. */
export function formatLapTime(ms: number | null | undefined, language?: string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  // Not Intl: its first number costs a phone a long task (lib/number-format.ts).
  return formatNumber(Math.round(ms / 10) / 100, language, { min: 2, max: 2 });
}

/** mm:ss of the time left (rounded up to the second, never negative): "02:59". */
export function formatRaceClock(msLeft: number): string {
  const seconds = Math.max(0, Math.ceil(msLeft / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${String(minutes).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}
