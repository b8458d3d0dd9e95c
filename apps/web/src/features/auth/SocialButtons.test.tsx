/**
 * The social buttons follow the public config (issue 13): a provider the deployment has not
 * configured is a disabled button with a tooltip saying so, on sign-up, login and claim; a
 * configured one is a link to the server's `/api/auth/{platform}?action=…`.
 */
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../../test/app';

beforeEach(async () => {
  await resetBrowser();
});

function withProviders(socialProviders: { twitch: boolean; youtube: boolean; discord: boolean }) {
  return stubServer({
    session: null,
    routes: { 'GET /api/public-config': () => json(200, { ...DEFAULT_PUBLIC_CONFIG, socialProviders }) },
  });
}

describe('social buttons', () => {
  it.each([
    ['/login', 'Log in with', 'login'],
    ['/signup', 'Sign up with', 'signup'],
    // /claim leaves them out and says why in its own words (Claim.test.tsx).
  ])(
    'on %s: only the configured providers are links, the others are disabled with a tooltip',
    async (path, verb, action) => {
      withProviders({ twitch: true, youtube: false, discord: true });
      renderApp(path);
      const youtube = await screen.findByRole('button', { name: `${verb} YouTube` });
      expect(youtube).toHaveAttribute('aria-disabled', 'true');
      expect(youtube).toHaveAccessibleDescription('YouTube sign-in is not available here');
      expect(youtube).toHaveAttribute('title', 'YouTube sign-in is not available here');
      expect(screen.queryByRole('link', { name: `${verb} YouTube` })).toBeNull();
      expect(screen.getByRole('link', { name: `${verb} Twitch` })).toHaveAttribute(
        'href',
        `/api/auth/twitch?action=${action}`,
      );
      expect(screen.getByRole('link', { name: `${verb} Discord` })).toHaveAttribute(
        'href',
        `/api/auth/discord?action=${action}`,
      );
    },
  );

  it('keeps a disabled button reachable from the keyboard, and it goes nowhere', async () => {
    const user = userEvent.setup();
    withProviders({ twitch: false, youtube: false, discord: false });
    const { router } = renderApp('/login');
    const twitch = await screen.findByRole('button', { name: 'Log in with Twitch' });
    twitch.focus();
    expect(twitch).toHaveFocus();
    await user.keyboard('{Enter}');
    await user.click(twitch);
    expect(router.state.location.pathname).toBe('/login');
    // Not `disabled`: that would take it out of the tab order, and its explanation with it.
    expect(twitch).not.toBeDisabled();
  });

  it('says so in French', async () => {
    await i18n.changeLanguage('fr');
    withProviders({ twitch: true, youtube: true, discord: false });
    renderApp('/login');
    const discord = await screen.findByRole('button', { name: 'Se connecter avec Discord' });
    expect(discord).toHaveAccessibleDescription("La connexion avec Discord n'est pas disponible ici");
  });
});
