import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { EventSocketManager } from '../../lib/event-socket';
import { FakeSocket, fakeSocketFactory } from '../../test/fake-socket';
import { leaderboardRow, pilot, raceState } from '../../test/races';
import { RaceCard, RaceCountdown, RacePanel } from './RaceOverlays';
import { RaceStore } from './race-store';
import { useLobbyJoin } from './use-lobby-join';
import { RaceStoreContext } from './use-race';

const ME = 12;
const CAR = 3;

/** The control page's race parts. */
function Race({ placement }: { placement?: 'over' | 'under' }) {
  const lobby = useLobbyJoin(ME, null);
  const card = <RaceCard carId={CAR} userId={ME} lobby={lobby} placement={placement} />;
  return (
    <>
      <div data-testid="video" className="relative">
        <RaceCountdown />
        {placement !== 'under' && card}
      </div>
      {placement === 'under' && card}
      <RacePanel userId={ME} />
    </>
  );
}

function renderRace(placement?: 'over' | 'under') {
  const socket = new EventSocketManager({
    createSocket: fakeSocketFactory,
    location: { protocol: 'http:', host: 'race.test' },
  });
  const store = new RaceStore(socket);
  store.attach();
  socket.connect('token-1');
  FakeSocket.last.serverOpen();
  // On a store fed by a fake event socket.
  render(
    <RaceStoreContext.Provider value={store}>
      <Race placement={placement} />
    </RaceStoreContext.Provider>,
  );
  const server = FakeSocket.last;
  return {
    /** What the race sent (not the socket's own hello, state request and pings). */
    sent: () => server.messages.filter((m) => !['hello', 'ping', 'get_current_state'].includes(m.type)),
    push: (message: unknown) => act(() => server.serverSend(message)),
  };
}

beforeEach(async () => {
  FakeSocket.reset();
  await i18n.changeLanguage('en');
});
afterEach(() => vi.useRealTimers());

describe('race on the control page', () => {
  it('shows nothing before the server told the race state', () => {
    renderRace();
    expect(screen.queryByTestId('race-panel')).not.toBeInTheDocument();
    expect(screen.queryByTestId('race-overlay')).not.toBeInTheDocument();
  });

  it('joins from idle: joining, then the lobby card once the member is a participant', async () => {
    const user = userEvent.setup();
    const { sent, push } = renderRace();
    push({ type: 'race_state_update', payload: raceState({ race_status: 'idle', race_id: null }) });
    const video = within(screen.getByTestId('video'));
    await user.click(video.getByRole('button', { name: 'Join race' }));
    expect(sent()).toEqual([{ type: 'join_lobby', carId: CAR }]);
    expect(video.getByTestId('race-joining')).toHaveTextContent('Joining the race…');

    push({
      type: 'race_state_update',
      payload: raceState({ participants: [pilot(ME, { ping: 42 }), pilot(5, { isReady: true, ping: 300 })] }),
    });
    // Over the video: the count and the toggle; beside it: the pilots, without the pings the
    // pages report (the driver's one ping is the page's readout; Race Control shows them all).
    expect(video.getByTestId('race-lobby-count')).toHaveTextContent('1/2 pilots ready');
    const list = within(screen.getByRole('list', { name: 'Pilots' }));
    expect(list.getByText('pilot5')).toBeVisible();
    expect(list.queryByText(/ms/)).not.toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Pilots' }).querySelector('[data-tone]')).toBeNull();

    const ready = video.getByRole('button', { name: "I'm ready" });
    expect(ready).toHaveAttribute('aria-pressed', 'false');
    await user.click(ready);
    expect(sent().at(-1)).toEqual({ type: 'toggle_ready' });
    push({
      type: 'race_state_update',
      payload: raceState({ participants: [pilot(ME, { isReady: true }), pilot(5, { isReady: true })] }),
    });
    expect(screen.getByRole('button', { name: "I'm ready" })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('race-lobby-count')).toHaveTextContent('2/2 pilots ready');
  });

  it('leaves the lobby to just drive: leave_lobby, then out of the count, and may join again', async () => {
    const user = userEvent.setup();
    const { sent, push } = renderRace();
    push({ type: 'race_state_update', payload: raceState({ participants: [pilot(ME), pilot(5)] }) });
    expect(screen.getByTestId('race-lobby-count')).toHaveTextContent('0/2 pilots ready');
    // Two forms of the one action: a line under the toggle, a small ✕ when the video is short.
    const leaves = within(screen.getByTestId('video')).getAllByRole('button', {
      name: 'Leave the lobby (just drive)',
    });
    expect(leaves).toHaveLength(2);
    await user.click(leaves[0] as HTMLElement);
    expect(sent()).toEqual([{ type: 'leave_lobby' }]);
    push({ type: 'race_state_update', payload: raceState({ participants: [pilot(5)] }) });
    expect(screen.queryByTestId('race-lobby-count')).not.toBeInTheDocument();
    expect(screen.getByText('A lobby is open with 1 pilot. Join it with this car.')).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Join race' }));
    expect(sent().at(-1)).toEqual({ type: 'join_lobby', carId: CAR });
  });

  it('under the video (a screen held upright): the lobby in one strip, the countdown still over the video', async () => {
    const user = userEvent.setup();
    const { sent, push } = renderRace('under');
    push({ type: 'race_state_update', payload: raceState({ participants: [pilot(ME), pilot(5)] }) });
    const video = screen.getByTestId('video');
    const card = screen.getByTestId('race-overlay');
    expect(video).not.toContainElement(card);
    expect(card).toHaveAttribute('data-placement', 'under');
    // In the page's flow, not laid over anything.
    expect(card).not.toHaveClass('absolute');
    const strip = within(card);
    expect(strip.getByTestId('race-lobby-count')).toHaveTextContent('0/2 pilots ready');
    await user.click(strip.getByRole('button', { name: "I'm ready" }));
    expect(sent().at(-1)).toEqual({ type: 'toggle_ready' });
    // One way to leave, the ✕ at the strip's end.
    const leave = strip.getByRole('button', { name: 'Leave the lobby (just drive)' });
    expect(strip.getAllByRole('button')).toEqual([strip.getByTestId('race-ready-toggle'), leave]);
    await user.click(leave);
    expect(sent().at(-1)).toEqual({ type: 'leave_lobby' });

    push({
      type: 'race_state_update',
      payload: raceState({ race_status: 'countdown', countdown_value: 3, participants: [pilot(ME)] }),
    });
    expect(within(video).getByTestId('race-countdown')).toHaveTextContent('3');
  });

  it('fails after 5 s without confirmation and retries', () => {
    vi.useFakeTimers();
    const { sent, push } = renderRace();
    push({ type: 'race_state_update', payload: raceState({ participants: [pilot(5)] }) });
    expect(screen.getByText('A lobby is open with 1 pilot. Join it with this car.')).toBeVisible();
    act(() => screen.getByTestId('race-join').click());
    act(() => vi.advanceTimersByTime(5_000));
    expect(screen.getByRole('alert')).toHaveTextContent('The race server did not confirm in time.');
    act(() => screen.getByRole('button', { name: 'Retry' }).click());
    expect(sent().filter((m) => m.type === 'join_lobby')).toHaveLength(2);
    expect(screen.getByTestId('race-joining')).toBeVisible();
  });

  it("shows the server's refusal in the failed overlay, in French too", async () => {
    await i18n.changeLanguage('fr');
    const { push } = renderRace();
    push({ type: 'race_state_update', payload: raceState({ race_status: 'idle', race_id: null }) });
    act(() => screen.getByTestId('race-join').click());
    push({ type: 'error', error: 'not your car', errorKey: 'errors.notCarHolder' });
    expect(screen.getByRole('alert')).toHaveTextContent(
      "Vous ne pilotez pas cette voiture : connectez-vous-y d'abord avec un code de contrôle.",
    );
    expect(screen.getByRole('button', { name: 'Réessayer' })).toBeVisible();
  });

  it('shows the countdown number over the video, then the race timer and the live leaderboard', () => {
    vi.useFakeTimers({ now: new Date('2026-12-01T20:00:00Z') });
    const { push } = renderRace();
    const participants = [pilot(ME), pilot(5)];
    push({
      type: 'race_state_update',
      payload: raceState({ race_status: 'countdown', countdown_value: 5, participants }),
    });
    expect(screen.getByTestId('race-countdown')).toHaveTextContent('5');
    push({
      type: 'race_state_update',
      payload: raceState({ race_status: 'countdown', countdown_value: 4, participants }),
    });
    expect(screen.getByTestId('race-countdown')).toHaveTextContent('4');
    expect(screen.getByTestId('video')).not.toContainElement(screen.queryByRole('button'));

    push({
      type: 'race_state_update',
      payload: raceState({ race_status: 'active', race_expires_at: '2026-12-01T20:03:00Z', participants }),
    });
    expect(screen.queryByTestId('race-countdown')).not.toBeInTheDocument();
    const video = within(screen.getByTestId('video'));
    expect(video.getByRole('timer', { name: 'Race time left' })).toHaveTextContent('03:00');
    act(() => vi.advanceTimersByTime(1_000));
    expect(screen.getByTestId('race-timer')).toHaveTextContent('02:59');

    push({
      type: 'live_leaderboard_update',
      data: [
        leaderboardRow(5, { pos: 1, laps: 3, best_lap: 11_234, last_lap: 12_000 }),
        leaderboardRow(ME, { pos: 2, laps: 2, best_lap: 12_345, last_lap: 12_345 }),
      ],
    });
    const rows = within(screen.getByTestId('live-leaderboard')).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('1pilot511.2312.003');
    expect(rows[2]).toHaveTextContent('2pilot12(you)12.3512.352');
    expect(rows[2]).toHaveAttribute('aria-current', 'true');
    // Over the video: position and name, then best lap and laps, names whole.
    const standings = video.getAllByRole('listitem');
    expect(standings.map((row) => row.textContent)).toEqual([
      'Pos. 1pilot5best 11.23 s · 3 laps',
      'Pos. 2pilot12(you)best 12.35 s · 2 laps',
    ]);
    expect(standings[1]).toHaveAttribute('aria-current', 'true');
  });

  it('offers no join while a race runs without the member', () => {
    const { push } = renderRace();
    push({
      type: 'race_state_update',
      payload: raceState({ race_status: 'active', participants: [pilot(5)] }),
    });
    expect(screen.queryByTestId('race-join')).not.toBeInTheDocument();
    expect(screen.getByText('A race is running: you can join the next one.')).toBeVisible();
  });
});
