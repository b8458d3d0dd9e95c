import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { callsTo, json, member, renderSignedIn, stubFetch } from '../profile/testing';
import { ThemeSettings } from './ThemeSettings';

afterEach(() => {
  vi.unstubAllGlobals();
  document.documentElement.className = 'dark';
});

describe('ThemeSettings', () => {
  it('saves the theme and applies it at once', async () => {
    const saved = { ...member, preferred_theme: 'light' as const };
    const fetchMock = stubFetch({ 'PATCH /api/me/theme': () => json(200, { user: saved }) });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<ThemeSettings />);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Theme' }), 'light');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Your settings were saved.');
    expect(callsTo(fetchMock, 'PATCH', '/api/me/theme')).toEqual([{ preferred_theme: 'light' }]);
    expect(document.documentElement).not.toHaveClass('dark');
    expect(session().user).toEqual(saved);
  });

  it('says "Could not save settings" and keeps the theme on failure', async () => {
    stubFetch({ 'PATCH /api/me/theme': () => Promise.reject(new TypeError('Failed to fetch')) });
    const user = userEvent.setup();
    document.documentElement.className = 'dark';
    await renderSignedIn(<ThemeSettings />);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Theme' }), 'light');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not save settings');
    expect(document.documentElement).toHaveClass('dark');
  });
});
