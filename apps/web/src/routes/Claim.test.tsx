/** /claim (spec §2 "Claim", §8 claim errors; issue 13): the explanation, the claim buttons and the errors the server sends back. */
import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

function server() {
  return stubServer({
    session: null,
    routes: {
      'GET /api/public-config': () =>
        json(200, {
          ...DEFAULT_PUBLIC_CONFIG,
          socialProviders: { twitch: true, youtube: true, discord: true },
          supportEmail: null,
        }),
    },
  });
}

describe('claim page', () => {
  it('explains the claim and offers the three platforms with action=claim, with no error', async () => {
    server();
    renderApp('/claim');
    expect(await screen.findByRole('heading', { level: 1, name: 'Claim your prize' })).toBeInTheDocument();
    expect(screen.getByText(/Sign in with the exact account you entered with/)).toBeVisible();
    for (const [name, platform] of [
      ['Twitch', 'twitch'],
      ['YouTube', 'youtube'],
      ['Discord', 'discord'],
    ]) {
      expect(await screen.findByRole('link', { name: `Claim with ${name}` })).toHaveAttribute(
        'href',
        `/api/auth/${platform}?action=claim`,
      );
    }
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it.each([
    [
      'no_win_found',
      'No active prize was found for this account. It may have expired or already been claimed.',
    ],
    [
      'server_error',
      'A server error occurred while claiming your prize. Please try again, or contact support',
    ],
    ['something_new', 'A server error occurred while claiming your prize.'],
  ])('explains ?error=%s', async (error, text) => {
    server();
    renderApp(`/claim?error=${error}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });

  it('says the prize is kept when no car is free (a warning, not a refusal)', async () => {
    server();
    renderApp('/claim?error=no_car_free');
    const message = await screen.findByText(/no car is free right now/);
    expect(message.closest('[role="status"]')).not.toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says it in French', async () => {
    await i18n.changeLanguage('fr');
    server();
    renderApp('/claim?error=no_win_found');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Aucun prix actif n'a été trouvé pour ce compte.",
    );
    expect(await screen.findByRole('link', { name: 'Réclamer avec Twitch' })).toBeInTheDocument();
  });
});
