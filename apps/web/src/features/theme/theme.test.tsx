import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { THEME_STORAGE_KEY } from '@telerace/protocol';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { member, renderApp, resetBrowser, stubServer } from '../../test/app';

const themeInitScript = readFileSync(resolve(import.meta.dirname, '../../../public/theme-init.js'), 'utf8');

/** What a page load does before React starts: index.html runs public/theme-init.js. */
function runThemeInit() {
  document.documentElement.className = '';
  new Function(themeInitScript)();
}

const isDark = () => document.documentElement.classList.contains('dark');

beforeEach(async () => {
  await resetBrowser();
});

describe('theme before first paint (public/theme-init.js)', () => {
  it('is dark by default', () => {
    runThemeInit();
    expect(isDark()).toBe(true);
  });

  it('reads a saved light theme', () => {
    window.localStorage.setItem(THEME_STORAGE_KEY, 'light');
    runThemeInit();
    expect(isDark()).toBe(false);
  });

  it('falls back to dark for an unknown saved value', () => {
    window.localStorage.setItem(THEME_STORAGE_KEY, 'purple');
    runThemeInit();
    expect(isDark()).toBe(true);
  });
});

describe('theme toggle', () => {
  it('switches theme, saves it, and the saved theme survives a reload', async () => {
    const user = userEvent.setup();
    stubServer({ session: null });
    const { unmount } = renderApp('/signup');
    const toggle = await screen.findByTestId('theme-toggle');
    expect(toggle).toHaveAccessibleName('Switch to light theme');

    await user.click(toggle);
    expect(isDark()).toBe(false);
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('light');
    expect(toggle).toHaveAccessibleName('Switch to dark theme');

    unmount();
    runThemeInit();
    expect(isDark()).toBe(false);
    renderApp('/signup');
    expect(await screen.findByTestId('theme-toggle')).toHaveAccessibleName('Switch to dark theme');

    await user.click(screen.getByTestId('theme-toggle'));
    expect(isDark()).toBe(true);
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
  });
});

describe("the user's preferred theme", () => {
  it('is applied when the user is loaded', async () => {
    stubServer({ session: { ...member, preferred_theme: 'light' } });
    renderApp('/signup');
    await waitFor(() => expect(isDark()).toBe(false));
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('light');
    expect(await screen.findByTestId('theme-toggle')).toHaveAccessibleName('Switch to dark theme');
  });

  it('leaves the saved theme alone for a signed-out visitor', async () => {
    window.localStorage.setItem(THEME_STORAGE_KEY, 'light');
    runThemeInit();
    stubServer({ session: null });
    renderApp('/signup');
    await screen.findByRole('heading', { level: 1, name: 'Sign up' });
    expect(isDark()).toBe(false);
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('light');
  });
});
