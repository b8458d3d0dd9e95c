/** Turns a failed call into the text a screen shows: translated errorKey, else server text, else fallback. */
import type { i18n as I18n, TFunction } from 'i18next';
import { ApiError } from '../../lib/api';

export function apiErrorText(t: TFunction, i18n: I18n, error: unknown, fallbackKey: string): string {
  if (error instanceof ApiError) {
    if (error.errorKey && i18n.exists(error.errorKey)) return t(error.errorKey);
    // The status text stands in for a missing body; only a real server message is worth showing.
    if (error.error && !/^HTTP \d+$/.test(error.error) && error.status !== 500) return error.error;
  }
  return t(fallbackKey);
}

/** A socket's `{error, errorKey}`: the translated key, else the server's text. */
export function socketErrorText(t: TFunction, i18n: I18n, error: { text: string; errorKey: string }): string {
  return i18n.exists(error.errorKey) ? t(error.errorKey) : error.text;
}
