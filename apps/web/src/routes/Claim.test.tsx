/**
 * /claim (spec §2 "Claim", §8 claim errors; issue 13): the explanation, the claim buttons and the
 * errors the server sends back; which platforms can be used here, whom to write to otherwise, and
 * the last raffle's claim deadline (issue 41 point 2).
 */
import type { RaffleSummary } from '@telerace/protocol';
import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

afterEach(() => {
  vi.useRealTimers();
});

const ALL = { twitch: true, youtube: true, discord: true };

function server(
  socialProviders = ALL,
  current: RaffleSummary | null = null,
  supportEmail: string | null = 'support@telerace.example',
) {
  return stubServer({
    session: null,
    routes: {
      'GET /api/public-config': () => json(200, { ...DEFAULT_PUBLIC_CONFIG, socialProviders, supportEmail }),
      'GET /api/raffles/current': () =>
        current ? json(200, current) : json(404, { error: 'none', errorKey: 'errors.raffleNotFound' }),
    },
  });
}

const drawnRaffle: RaffleSummary = {
  id: 12,
  status: 'drawn',
  racers: 2,
  commitment: 'a'.repeat(64),
  entriesHash: 'b'.repeat(64),
  seed: 'c'.repeat(64),
  entryCount: 3,
  totalWeight: 300,
  entriesByPlatform: { twitch: 1, youtube: 1, discord: 1 },
  winners: [{ platform: 'youtube', platformUserId: 'UC1', displayName: 'Léa' }],
  openedAt: '2026-12-01T19:50:00.000Z',
  drawnAt: '2026-12-01T20:00:00.000Z',
  claimUntil: '2026-12-01T20:15:00.000Z',
};

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

  it('says plainly which platforms can be used here, offers only those, and whom to write to otherwise', async () => {
    server({ twitch: true, youtube: false, discord: false });
    renderApp('/claim');
    expect(await screen.findByText('Here you can claim with Twitch.')).toBeVisible();
    expect(screen.getByTestId('claim-platforms')).toHaveTextContent(
      "Won on YouTube or Discord? Write to support@telerace.example with your name on that platform and the raffle's number, before the claim time ends.",
    );
    expect(screen.getByRole('link', { name: 'support@telerace.example' })).toHaveAttribute(
      'href',
      'mailto:support@telerace.example',
    );
    expect(screen.getByRole('link', { name: 'Claim with Twitch' })).toBeVisible();
    // No greyed-out buttons, no tooltips over the next one.
    expect(screen.queryByRole('button', { name: /Claim with/ })).toBeNull();
    expect(screen.queryByRole('tooltip')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Claim with YouTube' })).toBeNull();
  });

  it('sends a winner from another platform to the organiser when the site has no support address', async () => {
    server({ twitch: true, youtube: false, discord: false }, null, null);
    renderApp('/claim');
    expect(await screen.findByTestId('claim-platforms')).toHaveTextContent(
      'Won on YouTube or Discord? Ask the organiser of this site, during their stream or in its chat,',
    );
    expect(screen.queryByRole('link', { name: /@/ })).toBeNull();
  });

  it('says when no platform can be used here at all', async () => {
    server({ twitch: false, youtube: false, discord: false });
    renderApp('/claim');
    expect(
      await screen.findByText('No sign-in is set up on this site yet, so prizes cannot be claimed here.'),
    ).toBeVisible();
    expect(screen.getByTestId('claim-platforms')).toHaveTextContent(
      'Won on Twitch, YouTube, or Discord? Write to',
    );
    expect(screen.queryByRole('link', { name: /Claim with/ })).toBeNull();
  });

  it("counts down the last raffle's claim deadline, then says it passed", async () => {
    vi.useFakeTimers({ now: new Date('2026-12-01T20:14:58Z'), shouldAdvanceTime: true });
    server(ALL, drawnRaffle);
    renderApp('/claim');
    const deadline = await screen.findByTestId('claim-deadline');
    expect(deadline).toHaveTextContent(/^Raffle #12: winners can claim until .+\. Time left: 00:0[12]$/);
    await act(() => vi.advanceTimersByTimeAsync(3_000));
    expect(screen.getByTestId('claim-deadline')).toHaveTextContent(
      /^Raffle #12: the claim time ended at .+\.$/,
    );
    expect(screen.queryByRole('timer')).toBeNull();
  });

  it('says nothing about a deadline when there is no drawn raffle', async () => {
    server(ALL, null);
    renderApp('/claim');
    expect(await screen.findByRole('link', { name: 'Claim with Twitch' })).toBeVisible();
    expect(screen.queryByTestId('claim-deadline')).toBeNull();
    expect(screen.queryByTestId('claim-platforms')).toBeNull();
  });

  it('says which platforms and the deadline in French', async () => {
    await i18n.changeLanguage('fr');
    vi.useFakeTimers({ now: new Date('2026-12-01T20:00:00Z'), shouldAdvanceTime: true });
    server({ twitch: false, youtube: true, discord: true }, drawnRaffle);
    renderApp('/claim');
    expect(await screen.findByText('Ici, vous pouvez réclamer avec YouTube ou Discord.')).toBeVisible();
    expect(screen.getByTestId('claim-platforms')).toHaveTextContent(
      'Vous avez gagné sur Twitch? Écrivez à support@telerace.example en indiquant votre nom',
    );
    expect(await screen.findByTestId('claim-deadline')).toHaveTextContent(
      /^Tirage no 12 : les gagnants peuvent réclamer jusqu'à .+\. Temps restant : 1[45]:\d\d$/,
    );
  });
});
