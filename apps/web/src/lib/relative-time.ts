/**
 * "How long ago" texts of the admin tables (spec §9): 'N sec ago', 'N min ago', 'N hr ago',
 * 'N days ago', or 'Never' when there is no time. Each unit is used until the next one is reached;
 * counts are whole units, rounded down. A time in the future (clock skew) reads as 0 sec ago.
 */
import type { TFunction } from 'i18next';
import type { TranslationKey } from '../i18n';

export type RelativeUnit = 'seconds' | 'minutes' | 'hours' | 'days';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The unit and whole count of the time between `then` and `now`. */
export function relativeTimeParts(then: Date, now: Date): { unit: RelativeUnit; count: number } {
  const elapsed = Math.max(0, now.getTime() - then.getTime());
  if (elapsed < MINUTE) return { unit: 'seconds', count: Math.floor(elapsed / SECOND) };
  if (elapsed < HOUR) return { unit: 'minutes', count: Math.floor(elapsed / MINUTE) };
  if (elapsed < DAY) return { unit: 'hours', count: Math.floor(elapsed / HOUR) };
  return { unit: 'days', count: Math.floor(elapsed / DAY) };
}

const KEYS: Record<RelativeUnit, TranslationKey> = {
  seconds: 'time.secondsAgo',
  minutes: 'time.minutesAgo',
  hours: 'time.hoursAgo',
  days: 'time.daysAgo',
};

/** The translated text for a server timestamp (ISO string), or 'Never' for null or an unreadable value. */
export function formatRelativeTime(
  t: TFunction,
  value: string | Date | null | undefined,
  now: Date = new Date(),
): string {
  if (value === null || value === undefined) return t('time.never');
  const then = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(then.getTime())) return t('time.never');
  const { unit, count } = relativeTimeParts(then, now);
  return t(KEYS[unit], { count });
}
