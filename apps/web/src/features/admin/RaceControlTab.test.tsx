import {
  type AdminRaceResponse,
  type AdminSettings,
  DEFAULT_ADMIN_SETTINGS,
  IDLE_RACE_STATE,
  type RaceState,
} from '@telerace/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { pilot, raceState } from '../../test/races';
import { adminUser, callsTo, json, renderSignedIn, stubFetch } from '../profile/testing';
import { RaceControlTab } from './RaceControlTab';
import { ADMIN_RACE_KEY } from './race-api';

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
    const dialog = screen.getByRole('dialog', { name: 'Start the race anyway?' });
    await user.click(within(dialog).getByRole('button', { name: 'Start anyway' }));
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
    expect(dialog).toHaveTextContent('None of the 2 pilots in the lobby is ready.');
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
    await user.click(screen.getByTestId('race-start-confirm'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The race can only start while the lobby is open.',
    );
  });

  describe('asks before starting, saying how many of the pilots in the lobby are ready (issue 41)', () => {
    const cases = [
      {
        lobby: [pilot(5)],
        title: 'Start the race anyway?',
        ready: 'The pilot in the lobby is not ready.',
        button: 'Start anyway',
      },
      {
        lobby: [pilot(5, { isReady: true }), pilot(6)],
        title: 'Start the race anyway?',
        ready: 'Only 1 of the 2 pilots in the lobby is ready.',
        button: 'Start anyway',
      },
      {
        lobby: [pilot(5, { isReady: true }), pilot(6, { isReady: true })],
        title: 'Start the race?',
        ready: 'All 2 pilots in the lobby are ready.',
        button: 'Start race',
      },
    ];
    for (const { lobby: pilots, title, ready, button } of cases) {
      it(`${ready} → "${title}"`, async () => {
        const user = userEvent.setup();
        const fetchMock = stub(raceState({ participants: pilots }), {
          'POST /api/admin/race/start': () =>
            json(
              200,
              answer(raceState({ participants: pilots, race_status: 'countdown', countdown_value: 5 })),
            ),
        });
        await renderSignedIn(<RaceControlTab />, adminUser);
        const start = await screen.findByTestId('race-start');
        await user.click(start);
        const dialog = screen.getByRole('dialog', { name: title });
        expect(within(dialog).getByTestId('race-start-summary')).toHaveTextContent(
          `${ready}The race starts for every pilot in the lobby, ready or not. A 5 s countdown, then 3 min of racing.`,
        );
        // Not all ready: said as a warning, not in passing.
        const warned = within(dialog).queryByRole('status');
        if (title.endsWith('anyway?')) expect(warned).toHaveTextContent(ready);
        else expect(warned).toBeNull();
        await user.keyboard('{Escape}');
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
        expect(start).toHaveFocus();
        expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toEqual([]);

        await user.click(start);
        await user.click(
          within(screen.getByRole('dialog', { name: title })).getByRole('button', { name: button }),
        );
        expect(await screen.findByText('Race started: the countdown is running.')).toBeVisible();
        expect(callsTo(fetchMock, 'POST', '/api/admin/race/start')).toHaveLength(1);
      });
    }

    it('in French, with none of three ready', async () => {
      const user = userEvent.setup();
      await i18n.changeLanguage('fr');
      stub(raceState({ participants: [pilot(5), pilot(6), pilot(7)] }));
      await renderSignedIn(<RaceControlTab />, adminUser);
      await user.click(await screen.findByTestId('race-start'));
      const dialog = screen.getByRole('dialog', { name: 'Démarrer la course quand même ?' });
      expect(within(dialog).getByRole('status')).toHaveTextContent(
        "Aucun des 3 pilotes du salon n'est prêt.",
      );
      expect(dialog).toHaveTextContent(
        'La course démarre pour tous les pilotes du salon, prêts ou non. Un compte à rebours de 5 s, puis 3 min de course.',
      );
      expect(within(dialog).getByRole('button', { name: 'Démarrer quand même' })).toBeVisible();
    });

    it('cannot start a lobby nobody is in yet (one a raffle opened)', async () => {
      stub(raceState({ participants: [] }));
      await renderSignedIn(<RaceControlTab />, adminUser);
      const start = await screen.findByTestId('race-start');
      expect(start).toBeDisabled();
      expect(start).toHaveAttribute('title', 'Nobody is in the lobby yet.');
    });
  });

  describe('End race is there only while a race counts down or runs (issue 41)', () => {
    const running = { race_expires_at: new Date(Date.now() + 90_000).toISOString() };
    for (const race_status of ['idle', 'finishing'] as const) {
      it(`${race_status}: disabled, and grey rather than red`, async () => {
        stub(raceState({ race_status, race_id: race_status === 'idle' ? null : 7 }));
        await renderSignedIn(<RaceControlTab />, adminUser);
        const end = await screen.findByRole('button', { name: 'End race' });
        expect(end).toBeDisabled();
        expect(end).not.toHaveClass('bg-danger');
        expect(end).toHaveAttribute('title', 'Available while a race is counting down or running.');
      });
    }
    for (const race_status of ['countdown', 'active'] as const) {
      it(`${race_status}: enabled, red`, async () => {
        stub(raceState({ race_status, countdown_value: 3, ...running, participants: [pilot(5)] }));
        await renderSignedIn(<RaceControlTab />, adminUser);
        const end = await screen.findByRole('button', { name: 'End race' });
        expect(end).toBeEnabled();
        expect(end).toHaveClass('bg-danger');
      });
    }

    it('lobby: Close lobby in its place, confirmed', async () => {
      const user = userEvent.setup();
      const fetchMock = stub(raceState({ participants: [pilot(5)] }), {
        'POST /api/admin/race/end': () => json(200, answer(IDLE_RACE_STATE)),
      });
      await renderSignedIn(<RaceControlTab />, adminUser);
      await screen.findByTestId('race-start');
      expect(screen.queryByRole('button', { name: 'End race' })).not.toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: 'Close lobby' }));
      const dialog = screen.getByRole('dialog', { name: 'Close the lobby?' });
      expect(dialog).toHaveAccessibleDescription(
        'The pilots in the lobby are sent home and no race is recorded.',
      );
      await user.click(within(dialog).getByRole('button', { name: 'Close lobby' }));
      expect(await screen.findByText('The lobby was closed.')).toBeVisible();
      expect(callsTo(fetchMock, 'POST', '/api/admin/race/end')).toHaveLength(1);
    });
  });

  it('shows each message, and the ready count, only in the race state they belong to (issue 41)', async () => {
    const user = userEvent.setup();
    const pilots = [pilot(5, { isReady: true })];
    let current = raceState({ participants: pilots });
    stubFetch({
      'GET /api/admin/race': () => json(200, answer(current)),
      'GET /api/admin/settings': () => json(200, settings),
      'POST /api/admin/race/start': () => {
        current = raceState({ participants: pilots, race_status: 'countdown', countdown_value: 5 });
        return json(200, answer(current));
      },
      'POST /api/admin/race/end': () => {
        current = IDLE_RACE_STATE;
        return json(200, answer(current));
      },
    });
    const view = await renderSignedIn(<RaceControlTab />, adminUser);
    /** The race moves on, as the next read of the race (every 5 s) tells it. */
    const moveTo = async (state: RaceState) => {
      current = state;
      await act(() => view.queryClient.invalidateQueries({ queryKey: ADMIN_RACE_KEY }));
    };
    const started = 'Race started: the countdown is running.';

    expect(await screen.findByTestId('admin-race-ready-count')).toHaveTextContent('1/1 pilots ready');
    await user.click(screen.getByTestId('race-start'));
    await user.click(screen.getByTestId('race-start-confirm'));
    expect(await screen.findByText(started)).toBeVisible();
    expect(screen.queryByTestId('admin-race-ready-count')).not.toBeInTheDocument();
    expect(screen.getByTestId('admin-race-racing')).toHaveTextContent('1 pilot racing');

    await moveTo(
      raceState({
        participants: pilots,
        race_status: 'active',
        race_expires_at: new Date(Date.now() + 90_000).toISOString(),
      }),
    );
    expect(await screen.findByTestId('race-timer')).toBeVisible();
    expect(screen.queryByText(started)).not.toBeInTheDocument();
    expect(screen.queryByTestId('admin-race-ready-count')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'End race' }));
    await user.click(
      within(screen.getByRole('dialog', { name: 'End the race?' })).getByRole('button', { name: 'End race' }),
    );
    expect(await screen.findByText('The race was ended.')).toBeVisible();
    expect(screen.getByRole('button', { name: 'End race' })).toBeDisabled();

    // A new lobby: the last race's message is gone, and stays gone once that lobby closes too.
    await moveTo(raceState({ race_id: 8, participants: [pilot(6)] }));
    expect(await screen.findByTestId('admin-race-ready-count')).toHaveTextContent('0/1 pilots ready');
    expect(screen.queryByText('The race was ended.')).not.toBeInTheDocument();
    await moveTo(IDLE_RACE_STATE);
    await waitFor(() => expect(screen.getByTestId('admin-race-status')).toHaveTextContent('No race'));
    expect(screen.queryByText('The race was ended.')).not.toBeInTheDocument();
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
