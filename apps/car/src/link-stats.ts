/**
 * The car's drive link as the car sees it (issue 42), for its telemetry (Car Status, /metrics):
 * the round trip of its link pings, what the drive channel lost over the last minute, and its
 * deadman trips today. Pure apart from the clock it is given.
 *
 * Loss: the server sends every command on both paths, numbered (`seq`), so a command seen by
 * either path but never by the channel was lost on the channel; a ping sent on the channel and not
 * answered within PONG_WAIT_MS was lost on it, one way or the other. Both count over the last
 * WINDOW_MS.
 */
import type { CarLinkStats } from '@telerace/protocol';

export type LinkPath = 'socket' | 'channel';

/** The window of every figure. */
export const WINDOW_MS = 60_000;
/** A ping not answered within this long counts as lost. */
export const PONG_WAIT_MS = 2_000;

interface Ping {
  path: LinkPath;
  sentAt: number;
  rttMs: number | null;
}

export class LinkStats {
  /** seq → when it first came, and whether the channel brought it. */
  readonly #commands = new Map<number, { at: number; channel: boolean }>();
  #pings: Ping[] = [];
  #trips = 0;
  #tripsDay = '';

  constructor(private readonly now: () => number = Date.now) {}

  /** A numbered command arrived by `path` (either path may bring the same one). */
  command(seq: number | undefined, path: LinkPath): void {
    if (seq === undefined) return;
    const seen = this.#commands.get(seq);
    if (seen) {
      if (path === 'channel') seen.channel = true;
      return;
    }
    this.#commands.set(seq, { at: this.now(), channel: path === 'channel' });
    this.#prune();
  }

  /** A link ping goes out on `path`; returns its `t` (the time it was sent). */
  ping(path: LinkPath): number {
    const sentAt = this.now();
    this.#pings.push({ path, sentAt, rttMs: null });
    this.#prune();
    return sentAt;
  }

  /** The answer to the ping sent at `t` on `path`. */
  pong(path: LinkPath, t: number): void {
    const ping = this.#pings.find((candidate) => candidate.path === path && candidate.sentAt === t);
    if (ping && ping.rttMs === null) ping.rttMs = this.now() - t;
  }

  /** The car stopped on its own deadman. */
  deadmanTrip(): void {
    this.#countToday();
    this.#trips += 1;
  }

  /** The figures over the last minute; `channelOpen`: the channel is open now. */
  snapshot(channelOpen: boolean): CarLinkStats {
    this.#prune();
    this.#countToday();
    const rttMs = median(
      this.#pings
        .filter((ping) => ping.path === (channelOpen ? 'channel' : 'socket') && ping.rttMs !== null)
        .map((ping) => ping.rttMs as number),
    );
    return {
      channel: channelOpen,
      ...(rttMs === undefined ? {} : { rttMs: Math.round(rttMs) }),
      ...(channelOpen ? this.#channelLoss() : {}),
      deadmanTrips: this.#trips,
    };
  }

  #channelLoss(): { lossPercent?: number } {
    const now = this.now();
    let expected = 0;
    let arrived = 0;
    for (const { channel } of this.#commands.values()) {
      expected += 1;
      if (channel) arrived += 1;
    }
    for (const ping of this.#pings) {
      if (ping.path !== 'channel' || (ping.rttMs === null && now - ping.sentAt < PONG_WAIT_MS)) continue;
      expected += 1;
      if (ping.rttMs !== null) arrived += 1;
    }
    if (expected === 0) return {};
    return { lossPercent: Math.round(((expected - arrived) / expected) * 1000) / 10 };
  }

  /** Trips count for the car's calendar day: a new day starts from 0. */
  #countToday(): void {
    const day = new Date(this.now()).toDateString();
    if (day === this.#tripsDay) return;
    this.#tripsDay = day;
    this.#trips = 0;
  }

  #prune(): void {
    const since = this.now() - WINDOW_MS;
    // Maps and arrays keep their insertion order: the oldest come first.
    for (const [seq, { at }] of this.#commands) {
      if (at >= since) break;
      this.#commands.delete(seq);
    }
    const firstKept = this.#pings.findIndex((ping) => ping.sentAt >= since);
    if (firstKept !== 0) this.#pings = firstKept === -1 ? [] : this.#pings.slice(firstKept);
  }
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
