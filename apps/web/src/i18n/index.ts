/**
 * Translations: English and French, English as fallback. The language is detected in the
 * spec's order (query string `lng`, cookie, localStorage, sessionStorage, browser language,
 * <html lang>, then English), remembered in localStorage and a cookie, and mirrored on <html lang>.
 */
import { DEFAULT_LANGUAGE, LANGUAGE_COOKIE, LANGUAGES, type Language } from '@telerace/protocol';
import i18next, { type i18n as I18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import fr from './fr.json';
import pagesEn from './pages/en.json';
import pagesFr from './pages/fr.json';

export const resources = {
  en: { translation: { ...en, pages: pagesEn } },
  fr: { translation: { ...fr, pages: pagesFr } },
};

/** Each language named in itself, as the language switch shows it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', fr: 'Français' };

export const DETECTION_ORDER = [
  'querystring',
  'cookie',
  'localStorage',
  'sessionStorage',
  'navigator',
  'htmlTag',
];
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';
const ONE_YEAR_MINUTES = 60 * 24 * 365;

export function createI18n(): I18n {
  const instance = i18next.createInstance();
  instance.on('languageChanged', () => {
    document.documentElement.lang = instance.resolvedLanguage ?? DEFAULT_LANGUAGE;
  });
  void instance
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      resources,
      supportedLngs: [...LANGUAGES],
      fallbackLng: DEFAULT_LANGUAGE,
      // "fr-CA" from the browser counts as "fr".
      load: 'languageOnly',
      nonExplicitSupportedLngs: true,
      initAsync: false,
      interpolation: { escapeValue: false },
      detection: {
        order: DETECTION_ORDER,
        lookupQuerystring: 'lng',
        lookupCookie: LANGUAGE_COOKIE,
        lookupLocalStorage: LANGUAGE_STORAGE_KEY,
        lookupSessionStorage: LANGUAGE_STORAGE_KEY,
        caches: ['localStorage', 'cookie'],
        cookieMinutes: ONE_YEAR_MINUTES,
        cookieOptions: { path: '/', sameSite: 'lax' },
      },
    });
  return instance;
}

const i18n = createI18n();
export default i18n;
