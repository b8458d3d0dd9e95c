import { IDLE_RACE_STATE, type RaceState } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventSocketManager } from '../../lib/event-socket';
import { FakeSocket, fakeSocketFactory } from '../../test/fake-socket';
import { leaderboardRow, pilot, raceState } from '../../test/races';
import { LobbyJoin } from './lobby-join';
import { RaceEndWatch } from './race-end';
import { formatLapTime, formatRaceClock } from './race-format';
import { RaceStore } from './race-store';

const location = { protocol: 'http:', host: 'race.test' };
const ME = 12;

function openSocket() {
  const socket = new EventSocketManager({ createSocket: fakeSocketFactory, location });
  socket.connect('token-1');
  FakeSocket.last.serverOpen();
  return socket;
}

const joins = () => FakeSocket.last.messages.filter((m) => m.type === 'join_lobby');

beforeEach(() => FakeSocket.reset());
afterEach(() => vi.useRealTimers());

describe('race times', () => {
  it('shows lap times in seconds with 2 decimals', () => {
    expect(formatLapTime(12_345, 'en')).toBe('12.35');
    expect(formatLapTime(9_000, 'en')).toBe('9.00');
    expect(formatLapTime(61_004, 'fr')).toBe('61,00');
    expect(formatLapTime(null)).toBe('—');
  });

  it('shows the race clock as mm:ss, rounded up and never negative', () => {
    expect(formatRaceClock(180_000)).toBe('03:00');
    expect(formatRaceClock(179_001)).toBe('03:00');
    expect(formatRaceClock(59_000)).toBe('00:59');
    expect(formatRaceClock(-5)).toBe('00:00');
  });
});

describe('RaceStore', () => {
  it('keeps the latest state and live leaderboard, and empties the leaderboard for a new race', () => {
    const socket = openSocket();
    const store = new RaceStore(socket);
    store.attach();
    const row = leaderboardRow(1, { laps: 2, last_lap: 10_000, best_lap: 9_000 });
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: raceState({ race_status: 'active' }) });
    FakeSocket.last.serverSend({ type: 'live_leaderboard_update', data: [row] });
    expect(store.getState().leaderboard).toEqual([row]);
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: raceState({ race_status: 'active' }) });
    expect(store.getState().leaderboard).toEqual([row]);
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: raceState({ race_id: 8 }) });
    expect(store.getState().state?.race_id).toBe(8);
    expect(store.getState().leaderboard).toEqual([]);
  });

  it('records the latency of each pong and sends toggle_ready', () => {
    const now = vi.fn(() => 1_000);
    const socket = new EventSocketManager({ createSocket: fakeSocketFactory, location, now });
    socket.connect('token-1');
    FakeSocket.last.serverOpen();
    const store = new RaceStore(socket);
    store.attach();
    now.mockReturnValue(1_040);
    FakeSocket.last.serverSend({ type: 'pong', timestamp: 1_000 });
    expect(store.getState().latency).toBe(40);
    store.toggleReady();
    expect(FakeSocket.last.messages.at(-1)).toEqual({ type: 'toggle_ready' });
  });
});

describe('LobbyJoin', () => {
  function joiner(state: RaceState | null = raceState({ race_status: 'idle', race_id: null })) {
    vi.useFakeTimers();
    const socket = openSocket();
    const join = new LobbyJoin(socket, ME, () => state);
    join.start();
    return join;
  }

  it('is joining until the member appears among the participants', () => {
    const join = joiner();
    join.join(3);
    expect(join.phase).toEqual({ kind: 'joining', carId: 3 });
    expect(joins()).toEqual([{ type: 'join_lobby', carId: 3 }]);
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ participants: [pilot(5)] }),
    });
    expect(join.phase.kind).toBe('joining');
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ participants: [pilot(5), pilot(ME, { carId: 3 })] }),
    });
    expect(join.phase).toEqual({ kind: 'joined', carId: 3 });
    // Confirmed: the timeout no longer fails it.
    vi.advanceTimersByTime(10_000);
    expect(join.phase.kind).toBe('joined');
  });

  it('fails after 5 s without confirmation, and Retry sends the join again', () => {
    const join = joiner();
    join.join(3);
    vi.advanceTimersByTime(4_999);
    expect(join.phase.kind).toBe('joining');
    vi.advanceTimersByTime(1);
    expect(join.phase).toEqual({ kind: 'failed', carId: 3, error: null });
    join.join(3);
    expect(join.phase.kind).toBe('joining');
    expect(joins()).toHaveLength(2);
  });

  it('sends the join again 2 s after server_busy, with a fresh timeout', () => {
    const join = joiner();
    join.join(3);
    vi.advanceTimersByTime(1_000);
    FakeSocket.last.serverSend({ type: 'server_busy' });
    vi.advanceTimersByTime(1_999);
    expect(joins()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(joins()).toHaveLength(2);
    // 5 s counted from the re-sent join, not the first one.
    vi.advanceTimersByTime(4_999);
    expect(join.phase.kind).toBe('joining');
    vi.advanceTimersByTime(1);
    expect(join.phase.kind).toBe('failed');
  });

  it("fails with the server's refusal (not the car's holder)", () => {
    const join = joiner();
    join.join(3);
    FakeSocket.last.serverSend({ type: 'error', error: 'Not your car', errorKey: 'errors.notCarHolder' });
    expect(join.phase).toEqual({
      kind: 'failed',
      carId: 3,
      error: { text: 'Not your car', errorKey: 'errors.notCarHolder' },
    });
  });

  it('is joined at once when already a participant, and ends when the member leaves the race', () => {
    const join = joiner(raceState({ participants: [pilot(ME)] }));
    expect(join.phase.kind).toBe('joined');
    join.join(pilot(ME).carId);
    expect(joins()).toEqual([]);
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: IDLE_RACE_STATE });
    expect(join.phase.kind).toBe('none');
  });
});

describe('LobbyJoin joining by itself', () => {
  const IDLE = raceState({ race_status: 'idle', race_id: null });
  /** A control page's joiner for car 3, on a socket that is open (or not yet). */
  function page(known: RaceState | null, open = true) {
    vi.useFakeTimers();
    let state = known;
    const socket = new EventSocketManager({ createSocket: fakeSocketFactory, location });
    socket.connect('token-1');
    if (open) FakeSocket.last.serverOpen();
    const join = new LobbyJoin(socket, ME, () => state, 3);
    join.start();
    const tell = (next: RaceState) => {
      state = next;
      FakeSocket.last.serverSend({ type: 'race_state_update', payload: next });
    };
    return { join, socket, tell };
  }

  it('joins on opening when no race runs, from the state the page already has', () => {
    const { join } = page(IDLE);
    expect(joins()).toEqual([{ type: 'join_lobby', carId: 3 }]);
    expect(join.phase).toEqual({ kind: 'joining', carId: 3 });
  });

  it('joins a lobby others are in, once per connection, and again after a reconnect', () => {
    const { join, tell } = page(null);
    expect(joins()).toEqual([]);
    tell(raceState({ race_status: 'lobby', participants: [pilot(5)] }));
    expect(joins()).toHaveLength(1);
    // Later states of the same connection do not send it again (the join is on its way).
    tell(raceState({ race_status: 'lobby', participants: [pilot(5)] }));
    expect(joins()).toHaveLength(1);
    tell(raceState({ race_status: 'lobby', participants: [pilot(5), pilot(ME, { carId: 3 })] }));
    expect(join.phase.kind).toBe('joined');
    // The connection drops; the server lost the member meanwhile (a restart): joined again.
    FakeSocket.last.serverClose(1006);
    vi.advanceTimersByTime(10_000);
    FakeSocket.last.serverOpen();
    tell(raceState({ race_status: 'lobby', participants: [pilot(5)] }));
    expect(joins()).toEqual([{ type: 'join_lobby', carId: 3 }]);
  });

  it('does not join while a race counts down or runs, nor when already a participant', () => {
    page(raceState({ race_status: 'countdown' }));
    page(raceState({ race_status: 'active' }));
    const { join } = page(raceState({ race_status: 'lobby', participants: [pilot(ME, { carId: 3 })] }));
    const everyJoin = FakeSocket.instances.flatMap((s) => s.messages).filter((m) => m.type === 'join_lobby');
    expect(everyJoin).toEqual([]);
    expect(join.phase.kind).toBe('joined');
  });

  it('waits for the first state when the socket is not open yet', () => {
    const { tell } = page(IDLE, false);
    expect(FakeSocket.last.messages).toEqual([]);
    FakeSocket.last.serverOpen();
    tell(IDLE);
    expect(joins()).toEqual([{ type: 'join_lobby', carId: 3 }]);
  });

  it('does not join again on this page after the driver left the lobby; Join race still works', () => {
    const { join, tell } = page(raceState({ race_status: 'lobby', participants: [pilot(ME, { carId: 3 })] }));
    join.leave();
    expect(FakeSocket.last.messages.at(-1)).toEqual({ type: 'leave_lobby' });
    tell(raceState({ race_status: 'lobby', participants: [] }));
    expect(join.phase.kind).toBe('none');
    FakeSocket.last.serverClose(1006);
    vi.advanceTimersByTime(10_000);
    FakeSocket.last.serverOpen();
    tell(raceState({ race_status: 'lobby', participants: [] }));
    expect(joins()).toEqual([]);
    join.join(3);
    expect(joins()).toEqual([{ type: 'join_lobby', carId: 3 }]);
  });

  it('a page without a car to join with never joins by itself', () => {
    vi.useFakeTimers();
    const socket = openSocket();
    new LobbyJoin(socket, ME, () => IDLE).start();
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: IDLE });
    expect(joins()).toEqual([]);
  });
});

describe('RaceEndWatch', () => {
  const running = (status: RaceState['race_status'], mine = true, raceId = 7) =>
    raceState({ race_status: status, race_id: raceId, participants: mine ? [pilot(ME)] : [pilot(5)] });

  it("announces the end of the member's race once, going from any running status to idle", () => {
    for (const status of ['lobby', 'countdown', 'active', 'finishing'] as const) {
      const watch = new RaceEndWatch(() => ME);
      expect(watch.onState(running(status))).toBe(false);
      expect(watch.onState(IDLE_RACE_STATE)).toBe(true);
      expect(watch.onState(IDLE_RACE_STATE)).toBe(false);
      // The server's race_ended disconnect that follows says nothing more.
      expect(watch.onRaceEndedDisconnect()).toBe(false);
    }
  });

  it("does not announce someone else's race, or an idle state on connecting", () => {
    const watch = new RaceEndWatch(() => ME);
    expect(watch.onState(IDLE_RACE_STATE)).toBe(false);
    expect(watch.onState(running('active', false))).toBe(false);
    expect(watch.onState(IDLE_RACE_STATE)).toBe(false);
  });

  it('tells a lobby closed before the start (called off, no result) from a race that started', () => {
    const watch = new RaceEndWatch(() => ME);
    watch.onState(running('lobby'));
    expect(watch.onState(IDLE_RACE_STATE)).toBe(true);
    expect(watch.calledOff).toBe(true);
    for (const status of ['countdown', 'active'] as const) {
      watch.onState(running('lobby', true, 8));
      watch.onState(running(status, true, 8));
      expect(watch.onRaceEndedDisconnect()).toBe(true);
      expect(watch.calledOff).toBe(false);
      watch.onState(IDLE_RACE_STATE);
    }
  });

  it('announces once when the race_ended disconnect comes first, and again for the next race', () => {
    const watch = new RaceEndWatch(() => ME);
    watch.onState(running('active'));
    expect(watch.onRaceEndedDisconnect()).toBe(true);
    expect(watch.onState(IDLE_RACE_STATE)).toBe(false);
    watch.onState(running('lobby', true, 8));
    expect(watch.onState(IDLE_RACE_STATE)).toBe(true);
  });
});
