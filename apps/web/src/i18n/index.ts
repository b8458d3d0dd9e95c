/**
 * Translations: English and French, English as fallback. The language is detected in the
 * spec's order (query string `lng`, cookie, localStorage, sessionStorage, browser language,
 * <html lang>, then English), remembered in localStorage and a cookie, and mirrored on <html lang>.
 * In the production build English, every language's fallback, is in the first download but for
 * the texts only pages fetched when shown use, which come with those pages' code: the long
 * documents (about, FAQ, privacy, terms: `documents/`) and the sections of LATER_SECTIONS; French is
 * a chunk of its own, fetched only when shown. Tests and the dev server have it all at once.
 */
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@telerace/protocol';
import i18next, { type BackendModule, type i18n as I18n, type ParseKeys } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { languageDetector } from './detector';
import documentsEn from './documents/en.json';
import documentsFr from './documents/fr.json';
import en from './en.json';
import firstPageEn from './en.json?first-page';
import fr from './fr.json';
import pagesEn from './pages/en.json';
import pagesFr from './pages/fr.json';

/**
 * Whether every text is bundled: in tests, the dev server and the server's renderer (entry-server.tsx,
 * which draws any page in either language at once); the browser's build fetches them when shown.
 */
const ALL_TEXTS_BUNDLED = !import.meta.env.PROD || import.meta.env.SSR;

/** A function, so that the production build leaves the later English texts out of the first download. */
const english = () =>
  ALL_TEXTS_BUNDLED
    ? { translation: { ...en, pages: { ...pagesEn, ...documentsEn } } }
    : { translation: { ...firstPageEn, pages: pagesEn } };
/** A function, so that the production build leaves the French texts out of the first download. */
const bundledFrench = () => ({ translation: { ...fr, pages: { ...pagesFr, ...documentsFr } } });

type Texts = Record<string, unknown>;
type JsonModule = { default: Texts };

/** The languages fetched when shown, in the production build (each a chunk of its own: vite.config.ts). */
const LANGUAGE_CHUNKS: Partial<Record<Language, () => Promise<Texts>>> = {
  fr: () =>
    Promise.all([import('./fr.json'), import('./pages/fr.json'), import('./documents/fr.json')]).then(
      ([app, pages, documents]: [JsonModule, JsonModule, JsonModule]) => ({
        ...app.default,
        pages: { ...pages.default, ...documents.default },
      }),
    ),
};

/** i18next's loader for the production build: a language's texts, fetched the first time it is shown. */
const languageChunks: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, _namespace, callback) {
    const load = LANGUAGE_CHUNKS[language as Language];
    if (!load) return callback(null, {});
    load().then(
      (texts) => callback(null, texts),
      (error: unknown) => callback(error instanceof Error ? error.message : String(error), false),
    );
  },
};

/** A key of the texts, as `t()` takes it (typed from the English files: i18next.d.ts). */
export type TranslationKey = ParseKeys;

/** Each language named in itself, as the language switch shows it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', fr: 'Français' };

export { LANGUAGE_STORAGE_KEY } from './detector';

export function createI18n(): I18n {
  const instance = i18next.createInstance();
  // Build-time constants: the bundled French is left out of the browser's build.
  if (!ALL_TEXTS_BUNDLED) instance.use(languageChunks);
  // The server's renderer picks the language per page (entry-server.tsx): no browser to ask.
  if (!import.meta.env.SSR) {
    instance.use(languageDetector).on('languageChanged', () => {
      document.documentElement.lang = instance.resolvedLanguage ?? DEFAULT_LANGUAGE;
    });
  }
  void instance.use(initReactI18next).init({
    resources: ALL_TEXTS_BUNDLED ? { en: english(), fr: bundledFrench() } : { en: english() },
    // The loader above fetches the languages not given here.
    partialBundledLanguages: !ALL_TEXTS_BUNDLED,
    supportedLngs: [...LANGUAGES],
    fallbackLng: DEFAULT_LANGUAGE,
    // "fr-CA" from the browser counts as "fr".
    load: 'languageOnly',
    nonExplicitSupportedLngs: true,
    initAsync: false,
    interpolation: { escapeValue: false },
  });
  return instance;
}

const i18n = createI18n();
export default i18n;

/** Resolves once the shown language's texts are there (at once for English and outside the build). */
export function i18nReady(): Promise<void> {
  if (i18n.isInitialized) return Promise.resolve();
  return new Promise((resolve) => i18n.on('initialized', () => resolve()));
}

/** Fetches English texts once (none outside the build); a failure is not kept, the next call tries again. */
function englishTexts(load: () => Promise<Texts>): () => Promise<void> {
  let loading: Promise<void> | undefined;
  return () => {
    if (ALL_TEXTS_BUNDLED) return Promise.resolve();
    loading ??= load().then(
      (texts) => {
        i18n.addResourceBundle('en', 'translation', texts, true, false);
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}

/**
 * The English texts of the pages fetched when shown (LATER_SECTIONS), fetched with the first of
 * them. English is every language's fallback, so they are fetched whatever is shown.
 */
export const loadLaterEnglish = englishTexts(() =>
  import('./en.json?later').then((texts: JsonModule) => texts.default),
);

/** The English texts of the long documents (about, FAQ, privacy, terms), fetched with those pages. */
export const loadEnglishDocuments = englishTexts(() =>
  import('./documents/en.json').then((documents: JsonModule) => ({ pages: documents.default })),
);
