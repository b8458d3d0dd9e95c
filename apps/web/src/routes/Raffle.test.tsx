/**
 * The public raffle page (`/raffles/:id`; issue 13): an open raffle shows its commitment and its
 * entries, a drawn one also its winners, seed and entries hash; the verification command can be
 * copied; an unknown raffle shows the 404 state.
 */
import type { RafflePublic } from '@telerace/protocol';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

const open: RafflePublic = {
  id: 9,
  status: 'open',
  racers: 2,
  commitment: 'a1'.repeat(32),
  entries: [
    { platform: 'twitch', platformUserId: 't1', displayName: 'Zoe', weight: 125 },
    { platform: 'youtube', platformUserId: 'UC2', displayName: 'Léa', weight: 100 },
  ],
  winners: [],
  openedAt: '2026-11-25T20:00:00.000Z',
};

const drawn: RafflePublic = {
  ...open,
  status: 'drawn',
  winners: [{ platform: 'youtube', platformUserId: 'UC2', displayName: 'Léa' }],
  entriesHash: 'b2'.repeat(32),
  seed: 'c3'.repeat(32),
  drawnAt: '2026-11-25T20:10:00.000Z',
};

function server(raffle: RafflePublic | null) {
  return stubServer({
    session: null,
    routes: {
      'GET /api/raffles/9': () =>
        raffle ? json(200, raffle) : json(404, { error: 'no', errorKey: 'errors.raffleNotFound' }),
    },
  });
}

describe('raffle page', () => {
  it('shows an open raffle: its commitment, its entries with weights, no seed yet', async () => {
    server(open);
    renderApp('/raffles/9');
    expect(await screen.findByRole('heading', { level: 1, name: 'Raffle #9' })).toBeInTheDocument();
    expect(await screen.findByTestId('raffle-page-status')).toHaveTextContent('Open: taking entries');
    expect(screen.getByTestId('raffle-commitment')).toHaveTextContent(open.commitment);
    expect(screen.getByTestId('raffle-seed')).toHaveTextContent('Revealed at the draw');
    expect(screen.getByTestId('raffle-entries-hash')).toHaveTextContent('Revealed at the draw');
    const rows = within(screen.getByTestId('raffle-page-entries')).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual(['ZoeTwitch125', 'LéaYouTube100']);
    expect(screen.getByText('No winners yet.')).toBeVisible();
  });

  it('shows a drawn raffle: winners, seed, entries hash and the command to verify it, which copies', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    server(drawn);
    renderApp('/raffles/9');
    expect(await screen.findByTestId('raffle-seed')).toHaveTextContent(drawn.seed ?? '');
    expect(screen.getByTestId('raffle-entries-hash')).toHaveTextContent(drawn.entriesHash ?? '');
    expect(screen.getByTestId('raffle-page-winners')).toHaveTextContent('Léa');
    const command = `npm run verify-raffle -- ${window.location.origin}/api/raffles/9`;
    expect(screen.getByTestId('raffle-verify-command')).toHaveTextContent(command);
    await user.click(screen.getByRole('button', { name: 'Copy command' }));
    expect(writeText).toHaveBeenCalledWith(command);
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('shows the 404 state for an unknown raffle', async () => {
    server(null);
    renderApp('/raffles/9');
    expect(await screen.findByTestId('raffle-not-found')).toHaveTextContent('This raffle does not exist.');
  });

  it('shows the 404 state for an id that is not a number, without asking the server', async () => {
    const fetchMock = server(open);
    renderApp('/raffles/abc');
    expect(await screen.findByTestId('raffle-not-found')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([url]) => String(url).startsWith('/api/raffles'))).toBe(false);
  });

  it('says it in French', async () => {
    await i18n.changeLanguage('fr');
    server(drawn);
    renderApp('/raffles/9');
    expect(await screen.findByRole('heading', { level: 1, name: 'Tirage no 9' })).toBeInTheDocument();
    expect(await screen.findByText('Comment vérifier ce tirage')).toBeVisible();
  });
});
