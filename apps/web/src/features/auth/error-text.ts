/** Turns a failed call into the text a screen shows: translated errorKey, else server text, else fallback. */
import type { i18n as I18n, TFunction } from 'i18next';
import type { TranslationKey } from '../../i18n';
import { ApiError } from '../../lib/api';

/**
 * The server's errorKey as a key of the texts, if this build has a text for it: a newer server may
 * send one it does not know, so only `exists` can vouch for it (the server's ERROR_KEYS all have
 * one: i18n/translations.test.ts).
 */
function knownKey(i18n: I18n, key: string | undefined): TranslationKey | null {
  return key && i18n.exists(key) ? (key as TranslationKey) : null;
}

export function apiErrorText(t: TFunction, i18n: I18n, error: unknown, fallbackKey: TranslationKey): string {
  if (error instanceof ApiError) {
    const key = knownKey(i18n, error.errorKey);
    if (key) return t(key);
    // The status text stands in for a missing body; only a real server message is worth showing.
    if (error.error && !/^HTTP \d+$/.test(error.error) && error.status !== 500) return error.error;
  }
  return t(fallbackKey);
}

/** A socket's `{error, errorKey}`: the translated key, else the server's text. */
export function socketErrorText(t: TFunction, i18n: I18n, error: { text: string; errorKey: string }): string {
  const key = knownKey(i18n, error.errorKey);
  return key ? t(key) : error.text;
}
