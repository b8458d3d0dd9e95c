/**
 * The social buttons follow the public config (issue 13, issue 41 point 8): only the platforms the
 * deployment has configured are offered, as links to the server's `/api/auth/{platform}?action=…`;
 * with none, sign-up and log-in drop their "or continue with" part and the home page promises the
 * e-mail only.
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../../test/app';

beforeEach(async () => {
  await resetBrowser();
});

function withProviders(
  socialProviders: { twitch: boolean; youtube: boolean; discord: boolean },
  config: Partial<typeof DEFAULT_PUBLIC_CONFIG> = {},
) {
  return stubServer({
    session: null,
    routes: {
      'GET /api/public-config': () => json(200, { ...DEFAULT_PUBLIC_CONFIG, ...config, socialProviders }),
    },
  });
}

describe('social buttons', () => {
  it.each([
    ['/login', 'Log in with', 'login'],
    ['/signup', 'Sign up with', 'signup'],
    ['/claim', 'Claim with', 'claim'],
  ])('on %s: only the configured providers are shown, as links', async (path, verb, action) => {
    withProviders({ twitch: true, youtube: false, discord: true });
    renderApp(path);
    expect(await screen.findByRole('link', { name: `${verb} Twitch` })).toHaveAttribute(
      'href',
      `/api/auth/twitch?action=${action}`,
    );
    expect(screen.getByRole('link', { name: `${verb} Discord` })).toHaveAttribute(
      'href',
      `/api/auth/discord?action=${action}`,
    );
    // Nothing greyed out, nothing that would fail at the provider.
    expect(screen.queryByText(new RegExp(`${verb} YouTube`))).toBeNull();
    expect(screen.queryByRole('button', { name: new RegExp(verb) })).toBeNull();
  });

  it.each([
    ['/login', 'Log in', 'Or log in with'],
    ['/signup', 'Create account', 'Or sign up with'],
  ])('on %s with no provider configured: no "or … with" part at all', async (path, submit, divider) => {
    withProviders({ twitch: false, youtube: false, discord: false }, { promoVideoUrl: null });
    const { router } = renderApp('/');
    // The config is read once the promo video's section goes (none is configured either).
    await screen.findByText('Create a free account with your email.');
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'See Telerace in action' })).toBeNull());
    await act(() => router.navigate(path));
    const main = screen.getByRole('main');
    await within(main).findByRole('button', { name: submit });
    expect(within(main).queryByText(divider)).toBeNull();
    expect(within(main).queryByText(/Twitch|YouTube|Discord/)).toBeNull();
  });

  it('shows the configured ones in French too', async () => {
    await i18n.changeLanguage('fr');
    withProviders({ twitch: false, youtube: true, discord: false });
    renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Se connecter avec YouTube' })).toBeInTheDocument();
    expect(screen.queryByText(/Twitch|Discord/)).toBeNull();
  });
});

describe('the home page’s sign-up step', () => {
  it.each([
    [
      { twitch: true, youtube: false, discord: true },
      'Create a free account with your email, or with Twitch or Discord.',
    ],
    [
      { twitch: false, youtube: true, discord: false },
      'Create a free account with your email, or with YouTube.',
    ],
    [{ twitch: false, youtube: false, discord: false }, 'Create a free account with your email.'],
  ])('promises only the configured platforms (%o)', async (providers, text) => {
    withProviders(providers);
    renderApp('/');
    expect(await screen.findByText(text)).toBeInTheDocument();
  });

  it('in French', async () => {
    await i18n.changeLanguage('fr');
    withProviders({ twitch: true, youtube: true, discord: true });
    renderApp('/');
    expect(
      await screen.findByText(
        'Créez un compte gratuit avec votre courriel, ou avec Twitch, YouTube ou Discord.',
      ),
    ).toBeInTheDocument();
  });
});
