import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  callsTo,
  DEFAULT_PUBLIC_CONFIG,
  json,
  renderApp,
  resetBrowser,
  stubLoginServer,
  stubServer,
} from '../test/app';
import { redirectErrorKey } from './Login';

const ALL_PROVIDERS = {
  ...DEFAULT_PUBLIC_CONFIG,
  socialProviders: { twitch: true, youtube: true, discord: true },
  supportEmail: null,
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
    // Shown once the config says they are configured.
    for (const platform of ['twitch', 'youtube', 'discord']) {
      const name = { twitch: 'Twitch', youtube: 'YouTube', discord: 'Discord' }[platform];
      expect(await screen.findByRole('link', { name: `Log in with ${name}` })).toHaveAttribute(
        'href',
        `/api/auth/${platform}?action=login`,
      );
    }
  });
});

describe('a log-in sent before the public config has loaded', () => {
  /** A server whose public config answers only when the test says, with or without a site key. */
  function slowConfigServer() {
    let answerConfig: (siteKey: string | null) => void = () => {};
    const config = new Promise<Response>((resolve) => {
      answerConfig = (siteKey) => resolve(json(200, { ...DEFAULT_PUBLIC_CONFIG, recaptchaSiteKey: siteKey }));
    });
    const fetchMock = stubLoginServer({ 'GET /api/public-config': () => config });
    return { fetchMock, answerConfig };
  }

  async function submit() {
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'speedy@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
  }

  it('waits for it, busy, then logs in when the site has no reCAPTCHA', async () => {
    const { fetchMock, answerConfig } = slowConfigServer();
    const { router } = renderApp('/login');
    await submit();
    expect(await screen.findByRole('button', { name: 'Logging in…' })).toBeDisabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST', '/api/login')).toHaveLength(0);

    answerConfig(null);
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(callsTo(fetchMock, 'POST', '/api/login')).toEqual([
      { email: 'speedy@example.com', password: 'correct horse', recaptchaToken: '' },
    ]);
  });

  it('says the check is not ready, and sends nothing, when the config asks for reCAPTCHA', async () => {
    const { fetchMock, answerConfig } = slowConfigServer();
    renderApp('/login');
    await submit();
    answerConfig('site-key-1');
    expect(await screen.findByRole('alert')).toHaveTextContent('reCAPTCHA not ready, try again shortly');
    expect(screen.getByRole('button', { name: 'Log in' })).toBeEnabled();
    expect(callsTo(fetchMock, 'POST', '/api/login')).toHaveLength(0);
  });
});
