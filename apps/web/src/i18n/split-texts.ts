/**
 * How the English texts are split for the first download (a Vite plugin, used by vite.config.ts and
 * vitest.config.ts; it runs in Node, never in the page). `en.json?first-page` is en.json without the
 * sections of LATER_SECTIONS, `en.json?later` only those (src/i18n/index.ts loads them).
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'vite';

/**
 * Sections of en.json that only pages fetched when shown use (and the race event socket's alerts,
 * also fetched later). A section the first page uses must not be listed: it would show its keys.
 */
export const LATER_SECTIONS: readonly string[] = [
  'admin',
  'auth',
  'callback',
  'carStatus',
  'cars',
  'claim',
  'completeRegistration',
  'control',
  'forgot',
  'leaderboards',
  'login',
  'profile',
  'race',
  'raceControl',
  'racePage',
  'rafflePage',
  'reset',
  'settings',
  'signup',
  'social',
];

const PART = /[\\/]i18n[\\/]en\.json\?(?:.*&)?(first-page|later)$/;

export function splitEnglishTexts(): Plugin {
  return {
    name: 'telerace:split-english-texts',
    enforce: 'pre',
    async load(id) {
      const part = PART.exec(id)?.[1];
      if (!part) return null;
      const texts: Record<string, unknown> = JSON.parse(await readFile(id.slice(0, id.indexOf('?')), 'utf8'));
      const later = part === 'later';
      const kept = Object.entries(texts).filter(([section]) => LATER_SECTIONS.includes(section) === later);
      return { code: JSON.stringify(Object.fromEntries(kept)), moduleType: 'json' };
    },
  };
}
