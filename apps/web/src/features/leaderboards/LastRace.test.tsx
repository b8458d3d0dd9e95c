/**
 * The member's last race on the home page (issue 41): where a race's end sends its drivers, their
 * result (position, laps, best lap, the podium, the race's page) from GET /api/me/last-race; folded
 * to one line; offered while recent (a day); nothing for a signed-out visitor.
 */
import type { LastRace, LastRaceResponse } from '@telerace/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { callsTo, json, member, renderApp, resetBrowser, stubServer } from '../../test/app';
import { LAST_RACE_RECENT_MS } from './last-race';

const NOW = new Date('2026-12-07T21:00:00.000Z');
const MINUTE = 60_000;

/** speedy#12 (the signed-in member) came second of three, 3 min ago. */
const secondPlace: LastRace = {
  race_id: 77,
  finished_at: new Date(NOW.getTime() - 3 * MINUTE).toISOString(),
  end_reason: 'expired',
  position: 2,
  total_laps: 4,
  best_lap_time_ms: 8_765,
  drivers: 3,
  podium: [
    {
      position: 1,
      user_id: 5,
      username: 'rocket#5',
      avatar_url: null,
      total_laps: 5,
      best_lap_time_ms: 8_100,
    },
    {
      position: 2,
      user_id: member.id,
      username: member.username,
      avatar_url: null,
      total_laps: 4,
      best_lap_time_ms: 8_765,
    },
    { position: 3, user_id: 9, username: 'snail#9', avatar_url: null, total_laps: 1, best_lap_time_ms: null },
  ],
};

/** A podium place as read aloud: its position, the driver's name, their laps and best lap (the avatar is decoration). */
function placeText(place: HTMLElement): string {
  const [badge, , name, laps] = [...place.children] as HTMLElement[];
  return [badge?.textContent, name?.textContent, laps?.textContent].join(' · ');
}

function serve(race: LastRace | null, session = member) {
  const body: LastRaceResponse = { race };
  return stubServer({ session, routes: { 'GET /api/me/last-race': () => json(200, body) } });
}

beforeEach(async () => {
  await resetBrowser();
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the home page after a race', () => {
  it("shows the member's position, laps, best lap and the podium, with the race's page", async () => {
    serve(secondPlace);
    renderApp('/');
    const result = await screen.findByTestId('last-race');
    expect(within(result).getByRole('heading', { name: 'You finished in position 2 of 3' })).toBeVisible();
    expect(result).toHaveTextContent('Your last race');
    expect(result).toHaveTextContent('Race #77 · ended 3 min ago');
    expect(within(result).getByTestId('last-race-position')).toHaveTextContent('2 / 3');
    expect(within(result).getByTestId('last-race-laps')).toHaveTextContent('4');
    expect(within(result).getByTestId('last-race-best-lap')).toHaveTextContent('8.77 s');
    expect(within(result).queryByTestId('last-race-note')).toBeNull();

    const places = within(within(result).getByTestId('last-race-podium')).getAllByRole('listitem');
    expect(places.map(placeText)).toEqual([
      'Position 1 · rocket · 5 laps · 8.10 s',
      'Position 2 · speedy (you) · 4 laps · 8.77 s',
      'Position 3 · snail · 1 lap',
    ]);
    expect(within(result).getByRole('link', { name: 'See the race' })).toHaveAttribute('href', '/races/77');
  });

  it('folds to one line with the same link, and stays folded after a reload until a newer race', async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    serve(secondPlace);
    const first = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Hide this result' }));
    const reminder = await screen.findByTestId('last-race-reminder');
    expect(screen.queryByTestId('last-race')).toBeNull();
    expect(reminder).toHaveTextContent('Your last race · position 2 of 3 · 4 laps · ended 3 min ago');
    const link = within(reminder).getByRole('link', { name: 'See the race' });
    expect(link).toHaveAttribute('href', '/races/77');
    expect(link).toHaveFocus();
    first.unmount();

    // The page opened again: still folded (this browser remembers it for this race).
    renderApp('/');
    expect(await screen.findByTestId('last-race-reminder')).toBeVisible();
    expect(screen.queryByTestId('last-race')).toBeNull();
  });

  it('shows the result of a race that ended while the member was already home (sent home again)', async () => {
    let answer: LastRace | null = null;
    const fetchMock = stubServer({
      session: member,
      routes: { 'GET /api/me/last-race': () => json(200, { race: answer } satisfies LastRaceResponse) },
    });
    const { router } = renderApp('/');
    await waitFor(() => expect(callsTo(fetchMock, 'GET', '/api/me/last-race')).toHaveLength(1));
    expect(screen.queryByTestId('last-race')).toBeNull();
    answer = secondPlace;
    await act(() => router.navigate('/'));
    expect(await screen.findByTestId('last-race')).toHaveAttribute('data-race-id', '77');
  });

  it('shows a newer race in full even after the previous one was folded', async () => {
    window.localStorage.setItem(`lastRaceFolded:${member.id}`, '76');
    serve(secondPlace);
    renderApp('/');
    expect(await screen.findByTestId('last-race')).toHaveAttribute('data-race-id', '77');
  });

  it('says so when the member completed no lap, and when Race Control ended the race early (French)', async () => {
    await i18n.changeLanguage('fr');
    serve({
      ...secondPlace,
      end_reason: 'ended_by_admin',
      position: 3,
      total_laps: 0,
      best_lap_time_ms: null,
      drivers: 3,
      podium: [
        secondPlace.podium[0] as LastRace['podium'][number],
        { ...(secondPlace.podium[2] as LastRace['podium'][number]), position: 2 },
        {
          position: 3,
          user_id: member.id,
          username: member.username,
          avatar_url: null,
          total_laps: 0,
          best_lap_time_ms: null,
        },
      ],
    });
    renderApp('/');
    const result = await screen.findByTestId('last-race');
    expect(
      within(result).getByRole('heading', { name: 'Vous avez terminé en position 3 sur 3' }),
    ).toBeVisible();
    expect(result).toHaveTextContent('Votre dernière course');
    expect(result).toHaveTextContent('Course n° 77 · terminée il y a 3 min');
    expect(within(result).getByTestId('last-race-note')).toHaveTextContent(
      'La direction de course a arrêté cette course avant la fin du temps prévu.',
    );
    expect(within(result).getByTestId('last-race-laps')).toHaveTextContent('0');
    expect(within(result).getByTestId('last-race-best-lap')).toHaveTextContent('Aucun tour complet');
    expect(result).toHaveTextContent('franchissez-la deux fois pour signer un temps');
    const places = within(within(result).getByTestId('last-race-podium')).getAllByRole('listitem');
    expect(places.map(placeText)).toEqual([
      'Position 1 · rocket · 5 tours · 8,10 s',
      'Position 2 · snail · 1 tour',
      'Position 3 · speedy (vous) · 0 tour',
    ]);
    expect(within(result).getByRole('link', { name: 'Voir la course' })).toHaveAttribute('href', '/races/77');
  });

  it('congratulates a winner (French)', async () => {
    await i18n.changeLanguage('fr');
    serve({ ...secondPlace, position: 1 });
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Vous avez gagné la course !' })).toBeVisible();
  });
});

describe('your last race on the home page', () => {
  it('is offered while the race is recent (a day), and no longer after', async () => {
    const fetchMock = serve({
      ...secondPlace,
      finished_at: new Date(NOW.getTime() - LAST_RACE_RECENT_MS + MINUTE).toISOString(),
    });
    const recent = renderApp('/');
    expect(await screen.findByTestId('last-race')).toHaveTextContent('ended 23 hr ago');
    recent.unmount();

    serve({ ...secondPlace, finished_at: new Date(NOW.getTime() - LAST_RACE_RECENT_MS).toISOString() });
    renderApp('/');
    await screen.findByRole('heading', { name: 'Welcome to Telerace' });
    await waitFor(() => expect(callsTo(fetchMock, 'GET', '/api/me/last-race')).not.toHaveLength(0));
    expect(screen.queryByTestId('last-race')).toBeNull();
    expect(screen.queryByTestId('last-race-reminder')).toBeNull();
  });

  it('shows nothing to a member who never finished a race', async () => {
    const fetchMock = serve(null);
    renderApp('/');
    await waitFor(() => expect(callsTo(fetchMock, 'GET', '/api/me/last-race')).toHaveLength(1));
    expect(screen.queryByTestId('last-race')).toBeNull();
  });

  it('asks nothing and shows nothing to a signed-out visitor', async () => {
    const fetchMock = serve(secondPlace, null as never);
    renderApp('/');
    expect(await screen.findByRole('link', { name: 'Sign up' })).toBeVisible();
    expect(callsTo(fetchMock, 'GET', '/api/me/last-race')).toEqual([]);
    expect(screen.queryByTestId('last-race')).toBeNull();
  });
});
