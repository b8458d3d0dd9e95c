/**
 * The colour theme: dark or light, dark by default, kept in localStorage under THEME_STORAGE_KEY
 * and applied as the `dark` class on <html>. public/theme-init.js applies it before first paint;
 * this store keeps React in step afterwards.
 */
import { DEFAULT_THEME, THEME_STORAGE_KEY, THEMES, type Theme } from '@telerace/protocol';
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

function themeOfDocument(): Theme {
  return document.documentElement.classList.contains('dark') ? 'dark' : 'light';
}

/** Applies the theme to the page, remembers it and tells subscribers. */
export function setTheme(theme: Theme): void {
  document.documentElement.classList.toggle('dark', theme === 'dark');
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage can be blocked; the theme still applies to this page.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, themeOfDocument, () => DEFAULT_THEME);
}
