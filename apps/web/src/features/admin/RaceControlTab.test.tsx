import {
  type AdminRaceResponse,
  type AdminSettings,
  DEFAULT_ADMIN_SETTINGS,
  IDLE_RACE_STATE,
  type RaceState,
} from '@telerace/protocol';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { pilot, raceState } from '../../test/races';
import { adminUser, callsTo, json, renderSignedIn, stubFetch } from '../profile/testing';
import { RaceControlTab } from './RaceControlTab';

const settings: AdminSettings = DEFAULT_ADMIN_SETTINGS;

const answer = (state: RaceState, connected = true): AdminRaceResponse => ({
  state,
  leaderboard: [],
  lapCounter: { kind: 'rotorhazard', connected },
  uncountedCars: [],
});

const lobby = raceState({ participants: [pilot(5, { isReady: true, ping: 80 }), pilot(6, { ping: 180 })] });

function stub(state: RaceState, routes: Parameters<typeof stubFetch>[0] = {}) {
  return stubFetch({
    'GET /api/admin/race': () => json(200, answer(state)),
    'GET /api/admin/settings': () => json(200, settings),
    ...routes,
  });
}

beforeEach(async () => {
  await i18n.changeLanguage('en');
});
afterEach(() => vi.unstubAllGlobals());

describe('admin RaceControlTab', () => {
  it('shows an idle race: Start and End disabled, the lap counter and no participants', async () => {
    stub(IDLE_RACE_STATE);
    await renderSignedIn(<RaceControlTab />, adminUser);
    expect(await screen.findByTestId('race-start')).toBeDisabled();
    expect(screen.getByTestId('race-end')).toBeDisabled();
    expect(screen.getByTestId('race-sync')).toBeEnabled();
    expect(screen.getByTestId('admin-race-status')).toHaveTextContent('No race');
    expect(screen.getByTestId('admin-lap-counter-state')).toHaveTextContent('Connected');
    expect(screen.getByText('RotorHazard')).toBeVisible();
    expect(screen.getByText('No pilots yet.')).toBeVisible();
  });

  it('starts the race from the lobby, with the participants, ready states and pings shown', async () => {
    const user = userEvent.setup();
    let current = lobby;
    const fetchMock = stubFetch({
      'GET /api/admin/race': () => json(200, answer(current)),
      'GET /api/admin/settings': () => json(200, settings),
      'POST /api/admin/race/start': () => {
        current = raceState({ ...lobby, race_status: 'countdown', countdown_value: 5 });
        return json(200, answer(current));
      },
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    expect(await screen.findByTestId('admin-race-ready-count')).toHaveTextContent('1/2 pilots ready');
    const list = within(screen.getByRole('list', { name: 'Pilots' }));
    expect(list.getByText('80 ms')).toHaveAttribute('data-tone', 'good');
    expect(list.getByText('180 ms')).toHaveAttribute('data-tone', 'fair');
    expect(list.getAllByText('Ready')).toHaveLength(1);
    expect(screen.getByTestId('race-end')).toBeEnabled();

    await user.click(screen.getByTestId('race-start'));
    expect(await screen.findByText('Race started: the countdown is running.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toHaveLength(1);
    expect(screen.getByTestId('admin-race-countdown')).toHaveTextContent('5');
    expect(screen.getByTestId('race-start')).toBeDisabled();
  });

  it("says until when each pilot's car is theirs: a time in the lobby, the race's end once it started", async () => {
    /** The next time the clock reads hours:minutes. */
    const next = (hours: number, minutes: number) => {
      const at = new Date();
      at.setHours(hours, minutes, 0, 0);
      if (at.getTime() <= Date.now()) at.setDate(at.getDate() + 1);
      return at.toISOString();
    };
    stub(
      raceState({
        participants: [pilot(5, { sessionEndsAt: next(12, 34) }), pilot(6, { sessionEndsAt: next(21, 5) })],
      }),
    );
    const view = await renderSignedIn(<RaceControlTab />, adminUser);
    const pilots = within(await screen.findByRole('list', { name: 'Pilots' }));
    expect(pilots.getByText(/car until 12:34/)).toBeVisible();
    expect(pilots.getByText(/car until (21:05|09:05 PM)/)).toBeVisible();
    view.unmount();

    stub(
      raceState({
        race_status: 'active',
        race_expires_at: new Date(Date.now() + 90_000).toISOString(),
        participants: [pilot(5, { sessionEndsAt: null }), pilot(6, { sessionEndsAt: null })],
      }),
    );
    await i18n.changeLanguage('fr');
    await renderSignedIn(<RaceControlTab />, adminUser);
    const racing = within(await screen.findByRole('list', { name: 'Pilotes' }));
    expect(racing.getAllByText(/voiture jusqu'à la fin de la course/)).toHaveLength(2);
  });

  it('warns about the cars the lap counter cannot count, and starts the race only once the admin confirms', async () => {
    const user = userEvent.setup();
    const withSim = raceState({
      participants: [pilot(5, { carName: 'Sim 1' }), pilot(6, { carName: 'Sim 2' })],
    });
    const fetchMock = stubFetch({
      'GET /api/admin/race': () =>
        json(200, {
          ...answer(withSim),
          lapCounter: { kind: 'car', connected: true },
          uncountedCars: [{ carId: 105, carName: 'Sim 1', reason: 'no_passes' }],
        }),
      'GET /api/admin/settings': () => json(200, settings),
      'POST /api/admin/race/start': () =>
        json(200, answer({ ...withSim, race_status: 'countdown', countdown_value: 5 })),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    const warning = await screen.findByTestId('uncounted-cars');
    expect(warning).toHaveTextContent(
      'Sim 1 cannot count laps with the lap counter in use (LAP_COUNTER=car): its agent reports no crossings. Use a lap timer (ZRound, RiCino, RotorHazard) — see docs/races.md.',
    );
    expect(within(warning).getAllByRole('listitem')).toHaveLength(1);
    expect(screen.getByText('Laps will not be counted for 1 car')).toBeVisible();

    await user.click(screen.getByTestId('race-start'));
    const dialog = screen.getByRole('dialog', { name: 'Start the race anyway?' });
    expect(within(dialog).getByRole('listitem')).toHaveTextContent('Sim 1');
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toEqual([]);

    await user.click(screen.getByTestId('race-start'));
    await user.click(
      within(screen.getByRole('dialog', { name: 'Start the race anyway?' })).getByRole('button', {
        name: 'Start anyway',
      }),
    );
    expect(await screen.findByText('Race started: the countdown is running.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toHaveLength(1);
  });

  it('says in French which car has no lap counter id for the timer, and only for cars still in the race', async () => {
    await i18n.changeLanguage('fr');
    stubFetch({
      'GET /api/admin/race': () =>
        json(200, {
          ...answer(lobby),
          uncountedCars: [
            { carId: 106, carName: 'Car 6', reason: 'no_lap_counter_id' },
            { carId: 199, carName: 'Gone', reason: 'no_lap_counter_id' },
          ],
        }),
      'GET /api/admin/settings': () => json(200, settings),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    expect(await screen.findByTestId('uncounted-cars')).toHaveTextContent(
      "Car 6 ne peut pas compter ses tours avec le compteur de tours utilisé (LAP_COUNTER=rotorhazard) : elle n'a pas d'identifiant de compteur de tours. Saisissez son identifiant de pilote ou son nœud (node:0) dans l'onglet État des voitures — voir docs/races.md.",
    );
    expect(screen.queryByText(/Gone/)).not.toBeInTheDocument();
  });

  it("shows the server's refusal to start, translated", async () => {
    const user = userEvent.setup();
    stub(lobby, {
      'POST /api/admin/race/start': () =>
        json(409, { error: 'not in lobby', errorKey: 'errors.raceNotInLobby' }),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    await user.click(await screen.findByTestId('race-start'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The race can only start while the lobby is open.',
    );
  });

  it('ends a running race only after confirmation', async () => {
    const user = userEvent.setup();
    const active = raceState({
      ...lobby,
      race_status: 'active',
      race_expires_at: new Date(Date.now() + 90_000).toISOString(),
    });
    const fetchMock = stub(active, {
      'POST /api/admin/race/end': () => json(200, answer(IDLE_RACE_STATE)),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    expect(await screen.findByTestId('race-timer')).toHaveTextContent(/^01:(29|30)$/);
    await user.click(screen.getByTestId('race-end'));
    const dialog = screen.getByRole('dialog', { name: 'End the race?' });
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/end')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'End race' }));
    expect(await screen.findByText('The race was ended.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/race/end')).toHaveLength(1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('syncs names to the lap counter, or says why not', async () => {
    const user = userEvent.setup();
    let connected = true;
    stub(lobby, {
      'POST /api/admin/race/sync-lap-counter': () =>
        connected
          ? json(200, { synced: 2 })
          : json(409, { error: 'no counter', errorKey: 'errors.lapCounterNotConnected' }),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    await user.click(await screen.findByTestId('race-sync'));
    expect(await screen.findByText('2 names synced')).toBeVisible();
    connected = false;
    await user.click(screen.getByTestId('race-sync'));
    expect(await screen.findByRole('alert')).toHaveTextContent('No lap counter is connected.');
  });

  it('validates the race settings against their limits and saves them as a partial patch', async () => {
    const user = userEvent.setup();
    const fetchMock = stub(IDLE_RACE_STATE, {
      'PATCH /api/admin/settings': ({ body }) => json(200, { ...settings, ...(body as object) }),
    });
    await renderSignedIn(<RaceControlTab />, adminUser);
    const countdown = await screen.findByRole('spinbutton', { name: 'Countdown (s)' });
    expect(countdown).toHaveValue(5);
    await user.clear(countdown);
    await user.type(countdown, '11');
    await user.click(screen.getByRole('button', { name: 'Save race settings' }));
    expect(countdown).toHaveAccessibleDescription(expect.stringContaining('from 3 to 10'));
    expect(callsTo(fetchMock, 'PATCH', '/api/admin/settings')).toEqual([]);

    await user.clear(countdown);
    await user.type(countdown, '7');
    const length = screen.getByRole('spinbutton', { name: 'Race length (min)' });
    await user.clear(length);
    await user.type(length, '30');
    await user.click(screen.getByRole('button', { name: 'Save race settings' }));
    expect(await screen.findByText('Race settings saved.')).toBeVisible();
    expect(callsTo(fetchMock, 'PATCH', '/api/admin/settings')).toEqual([
      { race_countdown_seconds: 7, race_length_minutes: 30, min_lap_time_seconds: 3 },
    ]);
    await waitFor(() => expect(countdown).toHaveValue(7));
  });
});
