/**
 * Finds the visitor's language in the spec's order and remembers the one shown: the few lines of
 * i18next-browser-languagedetector this app used (its whole module was a sixtieth of the first
 * download). i18next takes the first supported language of the list `detect` returns.
 */
import { LANGUAGE_COOKIE } from '@telerace/protocol';
import type { LanguageDetectorModule } from 'i18next';
import { readCookie, writeCookie } from '../lib/cookies';

/** Where the language was last remembered (the key i18next's own detector used, kept for returning visitors). */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';
const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365;

/** Storage can be missing or refuse access (private browsing, blocked cookies): then it says nothing. */
function fromStorage(storage: () => Storage): string | null {
  try {
    return storage().getItem(LANGUAGE_STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The candidates in order: `?lng=`, the language cookie, localStorage, sessionStorage, the browser's languages, <html lang>. */
export function detectLanguages(): string[] {
  const candidates = [
    new URLSearchParams(window.location.search).get('lng'),
    readCookie(LANGUAGE_COOKIE),
    fromStorage(() => window.localStorage),
    fromStorage(() => window.sessionStorage),
    ...(navigator.languages ?? []),
    navigator.language,
    document.documentElement.getAttribute('lang'),
  ];
  return candidates.filter((language): language is string => typeof language === 'string' && language !== '');
}

export const languageDetector: LanguageDetectorModule = {
  type: 'languageDetector',
  detect: detectLanguages,
  cacheUserLanguage(language) {
    try {
      window.localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
    } catch {
      // Remembered by the cookie alone.
    }
    writeCookie(LANGUAGE_COOKIE, language, ONE_YEAR_SECONDS);
  },
};
