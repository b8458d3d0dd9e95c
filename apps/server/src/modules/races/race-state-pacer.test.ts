import { CONTROL_LIMITS, type RaceParticipant, type RaceState } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { onlyReadyOrPingChanged, RaceStatePacer } from './race-state-pacer.js';

const INTERVAL = CONTROL_LIMITS.raceStateIntervalMs;

const alice: RaceParticipant = {
  userId: 1,
  username: 'alice',
  carId: 10,
  carName: 'Red',
  isReady: false,
  ping: null,
};
const bob: RaceParticipant = {
  userId: 2,
  username: 'bob',
  carId: 11,
  carName: 'Blue',
  isReady: false,
  ping: null,
};

const lobby: RaceState = {
  race_id: 7,
  race_status: 'lobby',
  raffle_status: 'closed',
  race_expires_at: null,
  countdown_value: null,
  readyCount: 0,
  totalParticipants: 2,
  participants: [alice, bob],
};

/** The lobby with alice's ping at `ping` (and her ready flag). */
const pinged = (ping: number, isReady = false): RaceState => ({
  ...lobby,
  readyCount: isReady ? 1 : 0,
  participants: [{ ...alice, ping, isReady }, bob],
});

function pacer() {
  const clock = new ManualClock(new Date('2026-11-27T10:00:00Z'));
  const published: { state: RaceState; at: number }[] = [];
  const pacing = new RaceStatePacer(clock, (state) => published.push({ state, at: clock.now().getTime() }));
  return { clock, published, pacing, start: clock.now().getTime() };
}

describe('onlyReadyOrPingChanged', () => {
  it.each([
    ['a ping', pinged(40), true],
    ['a ready flag', pinged(0, true), true],
    ['nothing', lobby, true],
    ['the status', { ...lobby, race_status: 'countdown' as const, countdown_value: 5 }, false],
    ['the countdown value', { ...lobby, countdown_value: 4 }, false],
    ['the race end time', { ...lobby, race_expires_at: '2026-11-27T10:03:00.000Z' }, false],
    ['the raffle status', { ...lobby, raffle_status: 'open' as const }, false],
    ['the race', { ...lobby, race_id: 8 }, false],
    ['a participant leaving', { ...lobby, totalParticipants: 1, participants: [alice] }, false],
    ['the participants’ order', { ...lobby, participants: [bob, alice] }, false],
    ['a renamed driver', { ...lobby, participants: [{ ...alice, username: 'alicia' }, bob] }, false],
  ])('a change of %s: %s', (_what, next, paced) => {
    expect(onlyReadyOrPingChanged(lobby, next)).toBe(paced);
  });
});

describe('RaceStatePacer', () => {
  it('publishes the first state at once, holds ready and ping changes to one per interval, the latest winning', () => {
    const { clock, published, pacing, start } = pacer();
    pacing.offer(lobby);
    pacing.offer(pinged(10));
    pacing.offer(pinged(20, true));
    pacing.offer(pinged(30));
    expect(published.map((p) => p.state)).toEqual([lobby]);
    clock.advance(INTERVAL - 1);
    expect(published).toHaveLength(1);
    clock.advance(1);
    expect(published).toEqual([
      { state: lobby, at: start },
      { state: pinged(30), at: start + INTERVAL },
    ]);
    // Quiet for a whole interval: the next change goes at once again.
    clock.advance(INTERVAL);
    pacing.offer(pinged(40));
    expect(published.at(-1)).toEqual({ state: pinged(40), at: start + 2 * INTERVAL });
  });

  it('a burst of 1,000 changes over 2 s: at most one state per interval, the last one final and ≤ one interval late', () => {
    const { clock, published, pacing, start } = pacer();
    pacing.offer(lobby);
    for (let i = 1; i <= 1_000; i += 1) {
      clock.advance(2);
      pacing.offer(pinged(i, i % 5 === 0));
    }
    const burstEnd = clock.now().getTime();
    clock.advance(INTERVAL);
    // One per interval from the first to the one after the burst's end: 22, not 1,001.
    expect(published.length).toBeLessThanOrEqual((burstEnd + INTERVAL - start) / INTERVAL + 1);
    const times = published.map((p) => p.at);
    for (let i = 1; i < times.length; i += 1)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(INTERVAL);
    expect(published.at(-1)?.state).toEqual(pinged(1_000, true));
    expect((published.at(-1)?.at as number) - burstEnd).toBeLessThanOrEqual(INTERVAL);
    clock.advance(10 * INTERVAL);
    expect(published.at(-1)?.state).toEqual(pinged(1_000, true));
  });

  it('any other change goes out at once, with what was held; nothing held is published after it', () => {
    const { clock, published, pacing, start } = pacer();
    pacing.offer(lobby);
    pacing.offer(pinged(10));
    const countdown: RaceState = { ...pinged(10), race_status: 'countdown', countdown_value: 5 };
    pacing.offer(countdown);
    expect(published.map((p) => p.state)).toEqual([lobby, countdown]);
    clock.advance(1_000);
    const four = { ...countdown, countdown_value: 4 };
    pacing.offer(four);
    expect(published.at(-1)).toEqual({ state: four, at: start + 1_000 });
    clock.advance(10 * INTERVAL);
    expect(published).toHaveLength(3);
  });

  it('cancel drops a held state and its timer; publishNow publishes even an unchanged state', () => {
    const { clock, published, pacing } = pacer();
    pacing.offer(lobby);
    pacing.offer(pinged(10));
    pacing.cancel();
    clock.advance(10 * INTERVAL);
    expect(published.map((p) => p.state)).toEqual([lobby]);
    pacing.publishNow(lobby);
    expect(published.map((p) => p.state)).toEqual([lobby, lobby]);
  });
});
