import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../test/app';
import { redirectErrorKey } from './Login';

const ALL_PROVIDERS = {
  ...DEFAULT_PUBLIC_CONFIG,
  socialProviders: { twitch: true, youtube: true, discord: true },
};

beforeEach(async () => {
  await resetBrowser();
});

describe('login page', () => {
  it.each([
    [
      '?auth=failed&reason=twitch_permission',
      'Twitch login failed. Please grant all the requested permissions and try again.',
    ],
    [
      '?auth=failed&reason=youtube_permission',
      'YouTube login failed. Please grant all the requested permissions and try again.',
    ],
    [
      '?auth=failed&reason=discord_permission',
      'Discord login failed. Please grant all the requested permissions and try again.',
    ],
    ['?auth=failed&reason=something_else', 'Authentication failed, try again'],
    ['?auth=failed', 'Authentication failed, try again'],
    ['?error=auth_failed', 'Authentication failed, try again'],
  ])('explains a failed social login (%s)', async (search, message) => {
    stubServer({ session: null });
    renderApp(`/login${search}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
  });

  it('shows no error without those parameters', async () => {
    stubServer({ session: null });
    renderApp('/login?next=1');
    await screen.findByRole('heading', { level: 1, name: 'Log in' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(redirectErrorKey(new URLSearchParams('auth=ok&reason=twitch_permission'))).toBeNull();
  });

  it('has labelled fields with autocomplete, a forgot-password link and the three social logins', async () => {
    stubServer({ session: null, routes: { 'GET /api/public-config': () => json(200, ALL_PROVIDERS) } });
    renderApp('/login');
    expect(await screen.findByLabelText('Email')).toHaveAttribute('autocomplete', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'current-password');
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    for (const platform of ['twitch', 'youtube', 'discord']) {
      const name = { twitch: 'Twitch', youtube: 'YouTube', discord: 'Discord' }[platform];
      expect(screen.getByRole('link', { name: `Log in with ${name}` })).toHaveAttribute(
        'href',
        `/api/auth/${platform}?action=login`,
      );
    }
  });
});
