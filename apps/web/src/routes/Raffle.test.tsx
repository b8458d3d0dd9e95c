/**
 * The public raffle page (`/raffles/:id`; issues 13 and 23): an open raffle shows its commitment
 * and its entries (paged, with the whole list to download), a drawn one also its winners, seed
 * and entries hash; the verification command can be copied; an unknown raffle shows the 404 state.
 */
import type { RaffleEntry, RaffleSummary } from '@telerace/protocol';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

const entries: RaffleEntry[] = [
  { platform: 'twitch', platformUserId: 't1', displayName: 'Zoe', weight: 125 },
  { platform: 'youtube', platformUserId: 'UC2', displayName: 'Léa', weight: 100 },
];

const open: RaffleSummary = {
  id: 9,
  status: 'open',
  racers: 2,
  commitment: 'a1'.repeat(32),
  entryCount: 2,
  winners: [],
  openedAt: '2026-11-25T20:00:00.000Z',
};

const drawn: RaffleSummary = {
  ...open,
  status: 'drawn',
  winners: [{ platform: 'youtube', platformUserId: 'UC2', displayName: 'Léa' }],
  entriesHash: 'b2'.repeat(32),
  seed: 'c3'.repeat(32),
  drawnAt: '2026-11-25T20:10:00.000Z',
};

/** The raffle, and its entries page by page as the server pages them. */
function server(raffle: RaffleSummary | null, list: RaffleEntry[] = entries) {
  return stubServer({
    session: null,
    routes: {
      'GET /api/raffles/9': () =>
        raffle ? json(200, raffle) : json(404, { error: 'no', errorKey: 'errors.raffleNotFound' }),
      'GET /api/raffles/9/entries': ({ url }) => {
        const page = Number(url.searchParams.get('page'));
        const limit = Number(url.searchParams.get('limit'));
        return json(200, { data: list.slice((page - 1) * limit, page * limit), totalCount: list.length });
      },
    },
  });
}

describe('raffle page', () => {
  it('shows an open raffle: its commitment, its entries with weights, the download, no seed yet', async () => {
    server(open);
    renderApp('/raffles/9');
    expect(await screen.findByRole('heading', { level: 1, name: 'Raffle #9' })).toBeInTheDocument();
    expect(await screen.findByTestId('raffle-page-status')).toHaveTextContent('Open: taking entries');
    expect(screen.getByTestId('raffle-commitment')).toHaveTextContent(open.commitment);
    expect(screen.getByTestId('raffle-seed')).toHaveTextContent('Revealed at the draw');
    expect(screen.getByTestId('raffle-entries-hash')).toHaveTextContent('Revealed at the draw');
    const rows = await screen.findAllByTestId('raffle-entry');
    expect(rows.map((row) => row.textContent)).toEqual(['ZoeTwitch125', 'LéaYouTube100']);
    expect(screen.getByTestId('raffle-page-entry-count')).toHaveTextContent('(2)');
    expect(screen.getByRole('link', { name: 'Download every entry (JSON)' })).toHaveAttribute(
      'href',
      '/api/raffles/9/record',
    );
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
    const command = `npm run verify-raffle -- ${window.location.origin}/api/raffles/9/record`;
    expect(screen.getByTestId('raffle-verify-command')).toHaveTextContent(command);
    await user.click(screen.getByRole('button', { name: 'Copy command' }));
    expect(writeText).toHaveBeenCalledWith(command);
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('pages a big raffle: 25 entries a page, the next page on demand, the count from the summary', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 60 }, (_, i) => ({
      platform: 'twitch' as const,
      platformUserId: `t${i}`,
      displayName: `Viewer ${i}`,
      weight: 100,
    }));
    const fetchMock = server({ ...open, entryCount: 60 }, many);
    renderApp('/raffles/9');
    expect(await screen.findAllByTestId('raffle-entry')).toHaveLength(25);
    expect(screen.getByTestId('raffle-page-entry-count')).toHaveTextContent('(60)');
    await user.click(screen.getByRole('button', { name: /next/i }));
    expect(await screen.findByText('Viewer 25')).toBeVisible();
    expect(screen.queryByText('Viewer 0')).not.toBeInTheDocument();
    // The summary never carries the entries: only pages are asked for.
    const asked = fetchMock.mock.calls.map(([url]) => String(url)).filter((url) => url.includes('/entries'));
    expect(asked).toEqual(expect.arrayContaining(['/api/raffles/9/entries?page=2&limit=25']));
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
