import { afterAll, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { formatRelativeTime, relativeTimeParts } from './relative-time';

const NOW = new Date('2026-11-25T22:00:00.000Z');
const SEC = 1000;
const MIN = 60 * SEC;
const HR = 60 * MIN;
const DAY = 24 * HR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

afterAll(async () => {
  await i18n.changeLanguage('en');
});

describe('relativeTimeParts', () => {
  it.each([
    [0, 'seconds', 0],
    [999, 'seconds', 0],
    [SEC, 'seconds', 1],
    [MIN - 1, 'seconds', 59],
    [MIN, 'minutes', 1],
    [2 * MIN - 1, 'minutes', 1],
    [HR - 1, 'minutes', 59],
    [HR, 'hours', 1],
    [DAY - 1, 'hours', 23],
    [DAY, 'days', 1],
    [2 * DAY - 1, 'days', 1],
    [2 * DAY, 'days', 2],
    [400 * DAY, 'days', 400],
  ])('%i ms ago is %s × %i', (elapsed, unit, count) => {
    expect(relativeTimeParts(ago(elapsed), NOW)).toEqual({ unit, count });
  });

  it('reads a time in the future (clock skew) as 0 seconds ago', () => {
    expect(relativeTimeParts(new Date(NOW.getTime() + 5 * MIN), NOW)).toEqual({ unit: 'seconds', count: 0 });
  });
});

describe('formatRelativeTime', () => {
  it.each([
    [59 * SEC, '59 sec ago'],
    [MIN, '1 min ago'],
    [59 * MIN, '59 min ago'],
    [HR, '1 hr ago'],
    [23 * HR, '23 hr ago'],
    [DAY, '1 day ago'],
    [3 * DAY, '3 days ago'],
  ])('%i ms ago reads "%s" in English', async (elapsed, text) => {
    await i18n.changeLanguage('en');
    expect(formatRelativeTime(i18n.t, ago(elapsed).toISOString(), NOW)).toBe(text);
  });

  it.each([
    [5 * SEC, 'il y a 5 s'],
    [MIN, 'il y a 1 min'],
    [2 * HR, 'il y a 2 h'],
    [DAY, 'il y a 1 jour'],
    [3 * DAY, 'il y a 3 jours'],
  ])('%i ms ago reads "%s" in French', async (elapsed, text) => {
    await i18n.changeLanguage('fr');
    expect(formatRelativeTime(i18n.t, ago(elapsed), NOW)).toBe(text);
  });

  it('says Never for no time or an unreadable one', async () => {
    await i18n.changeLanguage('en');
    expect(formatRelativeTime(i18n.t, null, NOW)).toBe('Never');
    expect(formatRelativeTime(i18n.t, undefined, NOW)).toBe('Never');
    expect(formatRelativeTime(i18n.t, 'not a date', NOW)).toBe('Never');
    await i18n.changeLanguage('fr');
    expect(formatRelativeTime(i18n.t, null, NOW)).toBe('Jamais');
  });
});
