import { ERROR_KEYS } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import {
  advance,
  countdownValue,
  end,
  finished,
  IDLE,
  isEmptyLobby,
  isRefusal,
  join,
  leave,
  type Outcome,
  type RaceMachineState,
  reportPing,
  start,
  toggleReady,
} from './race-machine.js';

const alice = { userId: 1, username: 'alice', carId: 10, carName: 'Red' };
const bob = { userId: 2, username: 'bob', carId: 20, carName: 'Blue' };
const timing = { now: 1_000_000, countdownSeconds: 5, raceLengthMinutes: 3 };

function ok(outcome: Outcome): RaceMachineState {
  if (isRefusal(outcome)) throw new Error(`refused: ${outcome.errorKey}`);
  return outcome;
}
function refusal(outcome: Outcome) {
  if (!isRefusal(outcome)) throw new Error('expected a refusal');
  return { kind: outcome.kind, errorKey: outcome.errorKey };
}

const lobby = () => ok(join(ok(join(IDLE, alice, 7)), bob, null));
const countdown = () => ok(start(lobby(), timing));
const active = () => advance(countdown(), timing.now + 5_000);

describe('race machine: idle → lobby', () => {
  it('the first join opens the lobby with the new race and a not-ready participant', () => {
    const next = ok(join(IDLE, alice, 7));
    expect(next).toMatchObject({ status: 'lobby', raceId: 7 });
    expect(next.participants).toEqual([{ ...alice, isReady: false, ping: null }]);
  });

  it('opening a lobby without a race id is a programming error', () => {
    expect(() => join(IDLE, alice, null)).toThrow();
  });
});

describe('race machine: in the lobby', () => {
  it('joins in order; joining again with the same car changes nothing (idempotent)', () => {
    const state = lobby();
    expect(state.participants.map((p) => p.userId)).toEqual([1, 2]);
    expect(join(state, alice, null)).toBe(state);
  });

  it('joining again with another car switches car and clears ready', () => {
    const ready = ok(toggleReady(lobby(), 1));
    const switched = ok(join(ready, { ...alice, carId: 11, carName: 'Green' }, null));
    expect(switched.participants[0]).toMatchObject({ carId: 11, carName: 'Green', isReady: false });
  });

  it('refuses a car another participant holds', () => {
    expect(refusal(join(lobby(), { ...bob, userId: 3 }, null))).toEqual({
      kind: 'forbidden',
      errorKey: ERROR_KEYS.notCarHolder,
    });
  });

  it('toggle_ready flips the flag of that participant only', () => {
    const once = ok(toggleReady(lobby(), 2));
    expect(once.participants.map((p) => p.isReady)).toEqual([false, true]);
    expect(ok(toggleReady(once, 2)).participants.map((p) => p.isReady)).toEqual([false, false]);
  });

  it('toggle_ready from someone not in the lobby, or outside a lobby, is refused', () => {
    expect(refusal(toggleReady(lobby(), 3)).errorKey).toBe(ERROR_KEYS.notInLobby);
    expect(refusal(toggleReady(IDLE, 1)).errorKey).toBe(ERROR_KEYS.notInLobby);
    expect(refusal(toggleReady(countdown(), 1)).errorKey).toBe(ERROR_KEYS.notInLobby);
  });

  it('a participant leaving is removed; the last one leaving empties the lobby', () => {
    const one = leave(lobby(), 1);
    expect(one.participants.map((p) => p.userId)).toEqual([2]);
    expect(isEmptyLobby(one)).toBe(false);
    expect(isEmptyLobby(leave(one, 2))).toBe(true);
  });

  it('ping reports update the participant (rounded) and ignore others', () => {
    const state = reportPing(lobby(), 2, 41.6);
    expect(state.participants[1]?.ping).toBe(42);
    expect(reportPing(state, 2, 42)).toBe(state);
    expect(reportPing(state, 9, 10)).toBe(state);
  });
});

describe('race machine: start, countdown, active, end', () => {
  it('start: lobby → countdown, with both end times fixed from now and the settings', () => {
    expect(countdown()).toMatchObject({
      status: 'countdown',
      countdownEndsAt: timing.now + 5_000,
      expiresAt: timing.now + 5_000 + 3 * 60_000,
    });
  });

  it('start is refused outside the lobby and with nobody in it', () => {
    for (const state of [IDLE, countdown(), active(), ok(end(active()))])
      expect(refusal(start(state, timing)).errorKey).toBe(ERROR_KEYS.raceNotInLobby);
    const empty = leave(leave(lobby(), 1), 2);
    expect(refusal(start(empty, timing)).errorKey).toBe(ERROR_KEYS.raceNoParticipants);
  });

  it('countdown values go N…1 by whole seconds left, null outside the countdown', () => {
    const state = countdown();
    const values = [0, 1, 999, 1_000, 2_500, 4_000, 4_999].map((ms) =>
      countdownValue(state, timing.now + ms),
    );
    expect(values).toEqual([5, 5, 5, 4, 3, 1, 1]);
    expect(countdownValue(lobby(), timing.now)).toBeNull();
    expect(countdownValue(active(), timing.now + 6_000)).toBeNull();
  });

  it('time: countdown → active at its end, active → finishing at expiry, nothing before', () => {
    expect(advance(countdown(), timing.now + 4_999).status).toBe('countdown');
    expect(active().status).toBe('active');
    const expiry = timing.now + 5_000 + 180_000;
    expect(advance(active(), expiry - 1).status).toBe('active');
    expect(advance(active(), expiry).status).toBe('finishing');
    // A restart long after both ends goes straight to finishing.
    expect(advance(countdown(), expiry + 60_000).status).toBe('finishing');
    expect(advance(lobby(), expiry)).toEqual(lobby());
  });

  it('joining during countdown or active is refused; during finishing it is busy', () => {
    const carol = { userId: 3, username: 'carol', carId: 30, carName: 'Gold' };
    expect(refusal(join(countdown(), carol, null))).toEqual({
      kind: 'conflict',
      errorKey: ERROR_KEYS.raceInProgress,
    });
    expect(refusal(join(active(), carol, null)).kind).toBe('conflict');
    expect(refusal(join(ok(end(active())), carol, null)).kind).toBe('busy');
  });

  it('after the start, a participant whose session ends stays in the results', () => {
    expect(leave(countdown(), 1).participants).toHaveLength(2);
    expect(leave(active(), 1).participants).toHaveLength(2);
  });

  it('end: lobby, countdown and active → finishing; idle → raceNotRunning; finishing → busy', () => {
    for (const state of [lobby(), countdown(), active()]) expect(ok(end(state)).status).toBe('finishing');
    expect(refusal(end(IDLE))).toEqual({ kind: 'conflict', errorKey: ERROR_KEYS.raceNotRunning });
    expect(refusal(end(ok(end(active())))).kind).toBe('busy');
  });

  it('finished: back to idle with nothing left', () => {
    expect(finished(ok(end(active())))).toEqual(IDLE);
  });
});
