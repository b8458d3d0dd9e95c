// @vitest-environment jsdom
// (jsdom, not the suite's happy-dom: a storage getter that throws (private browsing) is what jsdom's window lets a test stub.)
import { LANGUAGE_COOKIE } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeCookie } from '../lib/cookies';
import { clearCookies } from '../test/app';
import { createI18n, LANGUAGE_STORAGE_KEY } from '.';

/** Every place the detector looks, filled with the given languages (or left empty). */
interface Browser {
  query?: string;
  cookie?: string;
  local?: string;
  session?: string;
  navigator?: string[];
  html?: string;
}

function setBrowser({ query, cookie, local, session, navigator = [], html }: Browser) {
  window.history.replaceState(null, '', query ? `/?lng=${query}` : '/');
  if (cookie) writeCookie(LANGUAGE_COOKIE, cookie, 3600);
  if (local) window.localStorage.setItem(LANGUAGE_STORAGE_KEY, local);
  if (session) window.sessionStorage.setItem(LANGUAGE_STORAGE_KEY, session);
  vi.spyOn(window.navigator, 'languages', 'get').mockReturnValue(navigator);
  vi.spyOn(window.navigator, 'language', 'get').mockReturnValue(navigator[0] ?? '');
  if (html) document.documentElement.setAttribute('lang', html);
}

function detect(browser: Browser): string | undefined {
  setBrowser(browser);
  return createI18n().resolvedLanguage;
}

function reset() {
  window.localStorage.clear();
  window.sessionStorage.clear();
  clearCookies();
  document.documentElement.removeAttribute('lang');
  window.history.replaceState(null, '', '/');
}

beforeEach(reset);
afterEach(reset);

describe('language detection order', () => {
  it('query string beats cookie', () => {
    expect(
      detect({ query: 'fr', cookie: 'en', local: 'en', session: 'en', navigator: ['en'], html: 'en' }),
    ).toBe('fr');
    reset();
    expect(
      detect({ query: 'en', cookie: 'fr', local: 'fr', session: 'fr', navigator: ['fr'], html: 'fr' }),
    ).toBe('en');
  });

  it('cookie beats localStorage', () => {
    expect(detect({ cookie: 'fr', local: 'en', session: 'en', navigator: ['en'], html: 'en' })).toBe('fr');
    reset();
    expect(detect({ cookie: 'en', local: 'fr', session: 'fr', navigator: ['fr'], html: 'fr' })).toBe('en');
  });

  it('localStorage beats sessionStorage', () => {
    expect(detect({ local: 'fr', session: 'en', navigator: ['en'], html: 'en' })).toBe('fr');
    reset();
    expect(detect({ local: 'en', session: 'fr', navigator: ['fr'], html: 'fr' })).toBe('en');
  });

  it('sessionStorage beats the browser language', () => {
    expect(detect({ session: 'fr', navigator: ['en-US'], html: 'en' })).toBe('fr');
    reset();
    expect(detect({ session: 'en', navigator: ['fr-CA'], html: 'fr' })).toBe('en');
  });

  it('the browser language beats <html lang>', () => {
    expect(detect({ navigator: ['fr-CA', 'en'], html: 'en' })).toBe('fr');
    reset();
    expect(detect({ navigator: ['en-GB'], html: 'fr' })).toBe('en');
  });

  it('uses <html lang> when nothing else says', () => {
    expect(detect({ html: 'fr' })).toBe('fr');
  });

  it('defaults to English', () => {
    expect(detect({})).toBe('en');
  });

  it('falls back to English for an unsupported language', () => {
    expect(detect({ query: 'de', navigator: ['es-ES'], html: 'it' })).toBe('en');
  });

  it('skips a storage that refuses access (private browsing)', () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    expect(detect({ local: 'en', session: 'en', navigator: ['fr-FR'] })).toBe('fr');
  });
});

describe('remembering the language', () => {
  it('caches the detected language in localStorage and the language cookie', () => {
    detect({ query: 'fr' });
    expect(window.localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('fr');
    expect(document.cookie).toContain(`${LANGUAGE_COOKIE}=fr`);
  });

  it('still sets the cookie when localStorage refuses to store', () => {
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    detect({ query: 'fr' });
    expect(document.cookie).toContain(`${LANGUAGE_COOKIE}=fr`);
  });

  it('mirrors the language on <html lang>', async () => {
    const i18n = createI18n();
    await i18n.changeLanguage('fr');
    expect(document.documentElement.lang).toBe('fr');
    await i18n.changeLanguage('en');
    expect(document.documentElement.lang).toBe('en');
  });
});
