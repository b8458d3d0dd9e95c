/**
 * Race Control's raffle half (issue 13): which buttons a closed or open raffle enables, the calls
 * they make (abort and clear only after a confirmation), the racers input's bounds, entries added
 * by hand, the winners' claim states and the audit data with the public page's link; the draw's
 * confirmation, the warning about platforms whose winners could not claim, and errors that go
 * when the raffle moves on (issue 41 points 2, 9, 11).
 */
import type { AdminRaffleResponse, RaffleEntry, RaffleSummary } from '@telerace/protocol';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { DEFAULT_PUBLIC_CONFIG } from '../../test/app';
import { adminUser, callsTo, json, renderSignedIn, stubFetch } from '../profile/testing';
import { RaffleControl } from './RaffleControl';

const COMMITMENT = 'c'.repeat(64);

function raffle(patch: Partial<RaffleSummary> = {}): RaffleSummary {
  return {
    id: 4,
    status: 'open',
    racers: 2,
    commitment: COMMITMENT,
    entryCount: 0,
    totalWeight: 0,
    entriesByPlatform: { twitch: 0, youtube: 0, discord: 0 },
    winners: [],
    openedAt: '2026-11-25T20:00:00.000Z',
    ...patch,
  };
}

const entries: RaffleEntry[] = [
  { platform: 'twitch', platformUserId: 't1', displayName: 'Zoe', weight: 125 },
  { platform: 'discord', platformUserId: 'd2', displayName: 'Max', weight: 100 },
];

const drawn: AdminRaffleResponse = {
  raffle: raffle({
    status: 'drawn',
    entryCount: 2,
    winners: [{ platform: 'twitch', platformUserId: 't1', displayName: 'Zoe' }],
    entriesHash: 'e'.repeat(64),
    seed: '5'.repeat(64),
    drawnAt: '2026-11-25T20:10:00.000Z',
  }),
  prizes: [
    {
      id: 1,
      rank: 1,
      platform: 'twitch',
      platformUserId: 't1',
      displayName: 'Zoe',
      state: 'pending',
      expiresAt: '2026-11-25T20:25:00.000Z',
    },
    {
      id: 2,
      rank: 2,
      platform: 'discord',
      platformUserId: 'd2',
      displayName: 'Max',
      state: 'claimed',
      expiresAt: '2026-11-25T20:25:00.000Z',
    },
  ],
};

beforeEach(async () => {
  await i18n.changeLanguage('en');
});
afterEach(() => vi.unstubAllGlobals());

describe('RaffleControl', () => {
  it('with no raffle: Start enabled with 2 racers, Draw and Abort disabled', async () => {
    stubFetch({ 'GET /api/admin/raffle': () => json(200, { raffle: null, prizes: [] }) });
    await renderSignedIn(<RaffleControl />, adminUser);
    expect(await screen.findByTestId('raffle-start')).toBeEnabled();
    expect(screen.getByTestId('raffle-racers')).toHaveValue(2);
    expect(screen.getByTestId('raffle-draw')).toBeDisabled();
    expect(screen.getByTestId('raffle-abort')).toBeDisabled();
    expect(screen.getByTestId('raffle-status')).toHaveTextContent('Closed');
    expect(screen.getByTestId('raffle-entry-submit')).toBeDisabled();
    expect(screen.queryByTestId('raffle-page-link')).toBeNull();
  });

  it('starts a raffle with the racers typed, refuses 0, then enables Draw and Abort', async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: null, prizes: [] };
    const fetchMock = stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'POST /api/admin/race/start-raffle': ({ body }) => {
        current = { raffle: raffle({ racers: (body as { racers: number }).racers }), prizes: [] };
        return json(200, current);
      },
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    const racers = await screen.findByTestId('raffle-racers');
    await user.clear(racers);
    await user.type(racers, '0');
    await user.click(screen.getByTestId('raffle-start'));
    expect(screen.getByText('Enter a whole number from 1 to 20.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start-raffle')).toEqual([]);

    await user.clear(racers);
    await user.type(racers, '3');
    await user.click(screen.getByTestId('raffle-start'));
    expect(await screen.findByText('Raffle open: entries are being taken.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start-raffle')).toEqual([{ racers: 3 }]);
    expect(screen.getByTestId('raffle-start')).toBeDisabled();
    expect(screen.getByTestId('raffle-draw')).toBeEnabled();
    expect(screen.getByTestId('raffle-abort')).toBeEnabled();
    expect(screen.getByTestId('raffle-status')).toHaveTextContent('Open');
    expect(screen.getByTestId('raffle-commitment')).toHaveTextContent(COMMITMENT);
    expect(screen.getByTestId('raffle-seed')).toHaveTextContent('revealed at the draw');
    expect(screen.getByTestId('raffle-page-link')).toHaveAttribute('href', '/raffles/4');
  });

  it("shows the server's refusal to start, translated", async () => {
    const user = userEvent.setup();
    stubFetch({
      'GET /api/admin/raffle': () => json(200, { raffle: null, prizes: [] }),
      'POST /api/admin/race/start-raffle': () =>
        json(409, { error: 'open', errorKey: 'errors.raffleAlreadyOpen' }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-start'));
    expect(await screen.findByRole('alert')).toHaveTextContent('A raffle is already open.');
  });

  it('says when an identity added by hand is already in (itself, or its account with another)', async () => {
    const user = userEvent.setup();
    stubFetch({
      'GET /api/admin/raffle': () => json(200, { raffle: raffle({ entryCount: 1 }), prizes: [] }),
      'GET /api/raffles/4/entries': () => json(200, { data: entries.slice(0, 1), totalCount: 1 }),
      'POST /api/admin/race/raffle-entries': () =>
        json(409, { error: 'Already in this raffle.', errorKey: 'errors.raffleAlreadyEntered' }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    const form = await screen.findByTestId('raffle-add-entry');
    await user.type(within(form).getByTestId('raffle-entry-user-id'), 'y9');
    await user.type(within(form).getByTestId('raffle-entry-name'), 'Zoe again');
    await user.click(within(form).getByTestId('raffle-entry-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Already in this raffle: this identity, or another one of the same account, has entered.',
    );
  });

  it('adds an entry by hand, and shows the entries with their weights', async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: raffle({ entryCount: 1 }), prizes: [] };
    let listed = entries.slice(0, 1);
    const fetchMock = stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'GET /api/raffles/4/entries': () => json(200, { data: listed, totalCount: listed.length }),
      'POST /api/admin/race/raffle-entries': () => {
        current = { raffle: raffle({ entryCount: 2 }), prizes: [] };
        listed = entries;
        return json(201, { ok: true });
      },
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    expect(await screen.findByTestId('raffle-entry-count')).toHaveTextContent('1 entry');
    const form = screen.getByTestId('raffle-add-entry');
    await user.selectOptions(within(form).getByTestId('raffle-entry-platform'), 'discord');
    await user.type(within(form).getByTestId('raffle-entry-user-id'), ' d2 ');
    await user.type(within(form).getByTestId('raffle-entry-name'), 'Max');
    await user.click(within(form).getByTestId('raffle-entry-submit'));
    expect(await screen.findByText('Entry added for Max.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/raffle-entries')).toEqual([
      { platform: 'discord', platformUserId: 'd2', displayName: 'Max' },
    ]);
    await waitFor(() => expect(screen.getByTestId('raffle-entry-count')).toHaveTextContent('2 entries'));
    // The entries are paged from the public list and read again after the addition.
    await waitFor(() => expect(screen.getAllByTestId('raffle-entry')).toHaveLength(2));
    const [zoe, max] = screen.getAllByTestId('raffle-entry');
    expect(zoe).toHaveTextContent('ZoeTwitch125');
    expect(max).toHaveTextContent('MaxDiscord100');
  });

  it('draws the winners, then shows their claim states and the revealed seed', async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: raffle({ entryCount: 2 }), prizes: [] };
    const fetchMock = stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'POST /api/admin/race/draw-winners': () => {
        current = drawn;
        return json(200, drawn);
      },
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-draw'));
    await user.click(screen.getByTestId('raffle-confirm-draw'));
    expect(await screen.findByText('1 winner drawn.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/draw-winners')).toHaveLength(1);
    const winners = screen.getByTestId('raffle-winners');
    const [first, second] = within(winners).getAllByRole('listitem');
    expect(first).toHaveTextContent('Zoe');
    expect(first).toHaveTextContent('Pending');
    expect(first).toHaveTextContent(/expires/);
    expect(second).toHaveTextContent('Max');
    expect(second).toHaveTextContent('Claimed');
    expect(screen.getByTestId('raffle-seed')).toHaveTextContent('5'.repeat(64));
    expect(screen.getByTestId('raffle-entries-hash')).toHaveTextContent('e'.repeat(64));
    expect(screen.getByTestId('raffle-start')).toBeEnabled();
    expect(screen.getByTestId('raffle-draw')).toBeDisabled();
  });

  it('aborts and clears expired wins only after their confirmations', async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: raffle({ entryCount: 2 }), prizes: [] };
    const fetchMock = stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'POST /api/admin/race/abort-raffle': () => {
        current = { raffle: raffle({ status: 'aborted', entryCount: 2 }), prizes: [] };
        return json(200, current);
      },
      'POST /api/admin/race/clear-pending-wins': () => json(200, { cleared: 1 }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-abort'));
    const abort = screen.getByRole('dialog', { name: 'Abort the raffle?' });
    await user.click(within(abort).getByRole('button', { name: 'Cancel' }));
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/abort-raffle')).toEqual([]);
    await user.click(screen.getByTestId('raffle-abort'));
    await user.click(
      within(screen.getByRole('dialog', { name: 'Abort the raffle?' })).getByRole('button', {
        name: 'Abort raffle',
      }),
    );
    expect(await screen.findByText('The raffle was aborted.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/abort-raffle')).toHaveLength(1);
    expect(screen.getByTestId('raffle-start')).toBeEnabled();

    await user.click(screen.getByTestId('raffle-clear'));
    const clear = screen.getByRole('dialog', { name: 'Clear the expired wins?' });
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/clear-pending-wins')).toEqual([]);
    await user.click(within(clear).getByRole('button', { name: 'Clear expired wins' }));
    expect(await screen.findByText('Expired wins cleared.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/clear-pending-wins')).toHaveLength(1);
  });

  it('says it in French', async () => {
    await i18n.changeLanguage('fr');
    stubFetch({ 'GET /api/admin/raffle': () => json(200, drawn) });
    await renderSignedIn(<RaffleControl />, adminUser);
    expect(await screen.findByTestId('raffle-start')).toHaveTextContent('Ouvrir le tirage');
    expect(screen.getByTestId('raffle-winners')).toHaveTextContent('Réclamé');
  });

  it('asks before drawing, saying how many winners, entries and tickets, and that it cannot be undone', async () => {
    const user = userEvent.setup();
    const open = raffle({ racers: 2, entryCount: 3, totalWeight: 1250 });
    const fetchMock = stubFetch({
      'GET /api/admin/raffle': () => json(200, { raffle: open, prizes: [] }),
      'POST /api/admin/race/draw-winners': () => json(200, drawn),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-draw'));
    const dialog = screen.getByRole('dialog', { name: 'Draw the winners now?' });
    expect(within(dialog).getByTestId('raffle-draw-summary')).toHaveTextContent(
      '2 winners will be drawn from 3 entries (1,250 tickets in all). This cannot be undone: the entries close, and the winners, the seed and every entry are published at once.',
    );
    // Keyboard: focus starts inside the dialog, Escape cancels.
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/draw-winners')).toEqual([]);
    await user.click(screen.getByTestId('raffle-draw'));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/draw-winners')).toEqual([]);
    await user.click(screen.getByTestId('raffle-draw'));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Draw winners' }));
    expect(await screen.findByText('1 winner drawn.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/draw-winners')).toHaveLength(1);
  });

  it('draws no more winners than there are entries, and says it in the confirmation', async () => {
    const user = userEvent.setup();
    stubFetch({
      'GET /api/admin/raffle': () =>
        json(200, { raffle: raffle({ racers: 3, entryCount: 1, totalWeight: 1 }), prizes: [] }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-draw'));
    expect(screen.getByTestId('raffle-draw-summary')).toHaveTextContent(
      '1 winner will be drawn from 1 entry (1 ticket in all).',
    );
  });

  it('warns, before the draw, that winners from platforms without sign-in could not claim', async () => {
    const user = userEvent.setup();
    const open = raffle({ entryCount: 4, entriesByPlatform: { twitch: 1, youtube: 3, discord: 0 } });
    stubFetch({
      'GET /api/admin/raffle': () => json(200, { raffle: open, prizes: [] }),
      'GET /api/public-config': () =>
        json(200, {
          ...DEFAULT_PUBLIC_CONFIG,
          socialProviders: { twitch: true, youtube: false, discord: false },
        }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    const warning = await screen.findByTestId('raffle-claim-warning');
    expect(screen.getByText('Winners from YouTube and Discord could not claim their prize')).toBeVisible();
    expect(
      within(warning)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['YouTube: 3 entries in this raffle', 'Discord: 0 entries in this raffle']);
    await user.click(screen.getByTestId('raffle-draw'));
    expect(within(screen.getByRole('dialog')).getByRole('status')).toHaveTextContent(
      '3 of these entries came from platforms whose sign-in is not configured here',
    );
  });

  it('shows no claim warning when every platform can sign in', async () => {
    const user = userEvent.setup();
    stubFetch({
      'GET /api/admin/raffle': () => json(200, { raffle: raffle({ entryCount: 2 }), prizes: [] }),
      'GET /api/public-config': () =>
        json(200, {
          ...DEFAULT_PUBLIC_CONFIG,
          socialProviders: { twitch: true, youtube: true, discord: true },
        }),
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-draw'));
    expect(within(screen.getByRole('dialog')).queryByRole('status')).toBeNull();
    expect(screen.queryByTestId('raffle-claim-warning')).toBeNull();
  });

  it('drops the duplicate-entry error once the raffle is drawn', async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: raffle({ entryCount: 1 }), prizes: [] };
    stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'GET /api/raffles/4/entries': () => json(200, { data: entries.slice(0, 1), totalCount: 1 }),
      'POST /api/admin/race/raffle-entries': () =>
        json(409, { error: 'Already in this raffle.', errorKey: 'errors.raffleAlreadyEntered' }),
      'POST /api/admin/race/draw-winners': () => {
        current = drawn;
        return json(200, drawn);
      },
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    const form = await screen.findByTestId('raffle-add-entry');
    await user.type(within(form).getByTestId('raffle-entry-user-id'), 't1');
    await user.type(within(form).getByTestId('raffle-entry-name'), 'Zoe again');
    await user.click(within(form).getByTestId('raffle-entry-submit'));
    const duplicate = /Already in this raffle/;
    expect(await screen.findByText(duplicate)).toBeVisible();
    await user.click(screen.getByTestId('raffle-draw'));
    await user.click(screen.getByTestId('raffle-confirm-draw'));
    expect(await screen.findByText('1 winner drawn.')).toBeVisible();
    expect(screen.queryByText(duplicate)).toBeNull();
  });

  it("drops an action's error when the raffle moves on elsewhere (another admin's tab)", async () => {
    const user = userEvent.setup();
    let current: AdminRaffleResponse = { raffle: raffle({ entryCount: 2 }), prizes: [] };
    stubFetch({
      'GET /api/admin/raffle': () => json(200, current),
      'POST /api/admin/race/abort-raffle': () => {
        current = drawn;
        return json(409, { error: 'not open', errorKey: 'errors.raffleNotOpen' });
      },
    });
    await renderSignedIn(<RaffleControl />, adminUser);
    await user.click(await screen.findByTestId('raffle-abort'));
    await user.click(screen.getByTestId('raffle-confirm-abort'));
    // The refusal shows until the page reads the raffle again and finds it drawn.
    await waitFor(() => expect(screen.getByTestId('raffle-winners')).toBeVisible());
    expect(screen.queryByText('No raffle is open.')).toBeNull();
  });
});
