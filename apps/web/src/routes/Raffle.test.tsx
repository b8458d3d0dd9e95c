/**
 * The public raffle page (`/raffles/:id`; issues 13 and 23): an open raffle shows its commitment
 * and its entries (paged, with the whole list to download), a drawn one also its winners, seed
 * and entries hash; the verification command can be copied; an unknown raffle shows the 404 state.
 */
import type { RaffleEntry, RaffleRecord, RaffleSummary } from '@telerace/protocol';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClaimCountdown } from '../features/raffles/ClaimTime';
import i18n from '../i18n';
import { json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

afterEach(() => {
  vi.useRealTimers();
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
  totalWeight: 225,
  entriesByPlatform: { twitch: 1, youtube: 1, discord: 0 },
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

/**
 * A real draw: docs/raffle-fairness.md's example (seed 00 01 … 1f, five entries, two winners),
 * whose hashes were computed independently (Python) — the page's checks must all pass on it.
 */
const example: RaffleRecord = {
  id: 9,
  status: 'drawn',
  racers: 2,
  commitment: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
  entriesHash: '5383d6d8bb8039ce4ea0560a6a4fbe6a2a120f45493fe5ad6ea0bf5535d2b087',
  seed: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  entryCount: 5,
  totalWeight: 651,
  entriesByPlatform: { twitch: 2, youtube: 1, discord: 2 },
  winners: [
    { platform: 'twitch', platformUserId: 'dave', displayName: 'Dave' },
    { platform: 'twitch', platformUserId: 'alice', displayName: 'Alice' },
  ],
  openedAt: '2026-11-25T20:00:00.000Z',
  drawnAt: '2026-11-25T20:10:00.000Z',
  entries: [
    { platform: 'discord', platformUserId: 'Zoë', displayName: 'Zoë', weight: 100 },
    { platform: 'discord', platformUserId: 'carol', displayName: 'Carol', weight: 1 },
    { platform: 'twitch', platformUserId: 'alice', displayName: 'Alice', weight: 150 },
    { platform: 'twitch', platformUserId: 'dave', displayName: 'Dave', weight: 300 },
    { platform: 'youtube', platformUserId: 'UCbob', displayName: 'Bob', weight: 100 },
  ],
};

/** The raffle, its record, and its entries page by page as the server pages them. */
function server(raffle: RaffleSummary | null, list: RaffleEntry[] = entries, record?: RaffleRecord) {
  return stubServer({
    session: null,
    routes: {
      'GET /api/raffles/9/record': () => (record ? json(200, record) : json(500, { error: 'down' })),
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

  it('checks a drawn raffle in the browser: every check passes, with a summary; the command is an aside', async () => {
    const { entries: list, ...summary } = example;
    server(summary, list, example);
    renderApp('/raffles/9');
    const verification = await screen.findByTestId('raffle-verification');
    expect(within(verification).getByRole('status')).toHaveTextContent('The draw checks out');
    const checks = within(verification).getAllByTestId('raffle-check');
    expect(checks.map((c) => [c.dataset.check, c.dataset.ok])).toEqual([
      ['format', 'true'],
      ['commitment', 'true'],
      ['entriesHash', 'true'],
      ['winners', 'true'],
    ]);
    expect(checks[0]).toHaveTextContent('Passed: The record holds every entry (5 entries)');
    expect(checks[1]).toHaveTextContent('The seed matches the commitment published at the opening');
    expect(checks[3]).toHaveTextContent('twitch:dave, twitch:alice');
    const aside = screen.getByRole('complementary', { name: 'Prefer the command line?' });
    expect(within(aside).getByTestId('raffle-verify-command')).toHaveTextContent('npm run verify-raffle');
    // "Racers: 2" says what it is.
    expect(screen.getByText('Winners drawn')).toBeVisible();
    expect(screen.getByTestId('raffle-page-places')).toHaveTextContent('2 of 2');
  });

  it('shows which check a tampered record fails, with both values', async () => {
    const { entries: list, ...summary } = example;
    const tampered = {
      ...example,
      entries: list.map((e) => (e.platformUserId === 'carol' ? { ...e, weight: 2 } : e)),
    };
    server(summary, list, tampered);
    renderApp('/raffles/9');
    const verification = await screen.findByTestId('raffle-verification');
    expect(within(verification).getByRole('alert')).toHaveTextContent(
      '1 check failed: the draw does NOT check out',
    );
    const failed = within(verification)
      .getAllByTestId('raffle-check')
      .filter((c) => c.dataset.ok === 'false');
    expect(failed.map((c) => c.dataset.check)).toEqual(['entriesHash']);
    expect(failed[0]).toHaveTextContent(`Failed: The entries match the entries hash`);
    expect(failed[0]).toHaveTextContent(`Published${example.entriesHash}`);
  });

  it('says when the record cannot be read, and that an open raffle has nothing to check yet', async () => {
    server(drawn);
    renderApp('/raffles/9');
    expect(
      await screen.findByText("Could not read the raffle's record to check it. Please try again."),
    ).toBeVisible();
  });

  it('shows an open raffle how many winners it will draw, and no check', async () => {
    server(open);
    renderApp('/raffles/9');
    expect(await screen.findByText('Winners to draw')).toBeVisible();
    expect(screen.getByTestId('raffle-page-places')).toHaveTextContent('2');
    expect(screen.queryByTestId('raffle-verification')).not.toBeInTheDocument();
    expect(screen.queryByTestId('raffle-claim')).not.toBeInTheDocument();
  });

  it('links winners to /claim with the time left, while the claim time runs', async () => {
    const claimUntil = new Date(Date.now() + 10 * 60_000).toISOString();
    server({ ...drawn, claimUntil });
    renderApp('/raffles/9');
    const claim = await screen.findByTestId('raffle-claim');
    expect(claim).toHaveTextContent('Won? Claim your prize');
    expect(within(claim).getByRole('link', { name: 'Claim my prize' })).toHaveAttribute('href', '/claim');
    expect(within(claim).getByRole('timer')).toHaveTextContent(/^(10:00|09:5\d)$/);
  });

  it('goes back where the viewer came from: home from a chat link, the previous page from the site', async () => {
    server(open);
    const { unmount } = renderApp('/raffles/9');
    expect(await screen.findByTestId('record-back')).toHaveAttribute('href', '/');
    expect(screen.getByTestId('record-back')).toHaveTextContent('Back to home');
    unmount();
    const user = userEvent.setup();
    renderApp(['/login', '/raffles/9']);
    const back = await screen.findByRole('button', { name: 'Back' });
    await user.click(back);
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
  });
});

describe('claim countdown', () => {
  const renderCountdown = (claimUntil: string) =>
    render(
      <MemoryRouter>
        <ClaimCountdown claimUntil={claimUntil} />
      </MemoryRouter>,
    );

  it('counts down each second, then says claims are closed', () => {
    vi.useFakeTimers({ now: new Date('2026-12-01T20:00:00Z') });
    renderCountdown('2026-12-01T20:00:03Z');
    expect(screen.getByRole('timer')).toHaveTextContent('00:03');
    act(() => vi.advanceTimersByTime(1_000));
    expect(screen.getByRole('timer')).toHaveTextContent('00:02');
    act(() => vi.advanceTimersByTime(2_000));
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
    expect(screen.getByTestId('raffle-claims-closed')).toHaveTextContent('Claims are closed.');
    // And stays closed: no negative time.
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByTestId('raffle-claims-closed')).toBeVisible();
  });

  it('says it in French', async () => {
    await i18n.changeLanguage('fr');
    vi.useFakeTimers({ now: new Date('2026-12-01T20:00:00Z') });
    renderCountdown('2026-12-01T20:15:00Z');
    expect(screen.getByText('Vous avez gagné? Réclamez votre prix')).toBeVisible();
    expect(screen.getByRole('timer')).toHaveTextContent('15:00');
    expect(screen.getByRole('link', { name: 'Réclamer mon prix' })).toHaveAttribute('href', '/claim');
  });
});
