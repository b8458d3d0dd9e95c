import { describe, expect, it } from 'vitest';
import { LinkStats, PONG_WAIT_MS, WINDOW_MS } from './link-stats.js';

function statsAt(start = Date.UTC(2026, 11, 7, 12)) {
  let now = start;
  return {
    stats: new LinkStats(() => now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('LinkStats', () => {
  it('says the socket alone, with no figure, before anything happened', () => {
    expect(statsAt().stats.snapshot(false)).toEqual({ channel: false, deadmanTrips: 0 });
  });

  it('counts a command the channel never brought as lost, whichever path brought it first', () => {
    const { stats } = statsAt();
    for (let seq = 1; seq <= 100; seq++) {
      stats.command(seq, 'socket');
      // The channel lost every tenth one; it brought the others after the socket or before it.
      if (seq % 10 !== 0) stats.command(seq, 'channel');
    }
    stats.command(101, 'channel');
    stats.command(101, 'socket');
    expect(stats.snapshot(true).lossPercent).toBeCloseTo((10 / 101) * 100, 1);
    // The socket alone: no channel loss to speak of.
    expect(stats.snapshot(false).lossPercent).toBeUndefined();
  });

  it('ignores commands without a number (an older server)', () => {
    const { stats } = statsAt();
    stats.command(undefined, 'socket');
    expect(stats.snapshot(true).lossPercent).toBeUndefined();
  });

  it('gives the median round trip of the pings on the path in use, and counts unanswered channel pings as lost once overdue', () => {
    const { stats, advance } = statsAt();
    for (const rtt of [40, 60, 50]) {
      const t = stats.ping('channel');
      advance(rtt);
      stats.pong('channel', t);
      advance(1_000 - rtt);
    }
    const socketPing = stats.ping('socket');
    advance(200);
    stats.pong('socket', socketPing);
    const lost = stats.ping('channel');
    expect(stats.snapshot(true)).toMatchObject({ rttMs: 50, lossPercent: 0 });
    advance(PONG_WAIT_MS);
    expect(stats.snapshot(true)).toMatchObject({ rttMs: 50, lossPercent: 25 });
    expect(stats.snapshot(false).rttMs).toBe(200);
    // A late answer to a ping already counted as lost still counts: it came back.
    stats.pong('channel', lost);
    expect(stats.snapshot(true).lossPercent).toBe(0);
  });

  it('forgets what is older than a minute', () => {
    const { stats, advance } = statsAt();
    stats.command(1, 'socket');
    const t = stats.ping('channel');
    advance(30);
    stats.pong('channel', t);
    advance(WINDOW_MS);
    stats.command(2, 'channel');
    expect(stats.snapshot(true)).toEqual({ channel: true, lossPercent: 0, deadmanTrips: 0 });
  });

  it("counts deadman trips for the car's day, from 0 again the next day", () => {
    const { stats, advance } = statsAt(new Date(2026, 11, 7, 23, 59).getTime());
    stats.deadmanTrip();
    stats.deadmanTrip();
    expect(stats.snapshot(false).deadmanTrips).toBe(2);
    advance(2 * 60_000);
    expect(stats.snapshot(false).deadmanTrips).toBe(0);
    stats.deadmanTrip();
    expect(stats.snapshot(false).deadmanTrips).toBe(1);
  });
});
