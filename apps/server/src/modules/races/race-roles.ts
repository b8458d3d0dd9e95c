/**
 * What the race engine's two roles share (race-engine.ts picks one): the leader's engine that runs
 * the race (leader-engine.ts) and the follower's proxy that sends commands to it
 * (follower-proxy.ts). Both answer the same `RaceRole`, run their work on one `CommandQueue`, and
 * reach the rest of the server through the ports below.
 */
import { ERROR_KEYS, type RaceState } from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import type { liveLeaderboard } from './lap-rules.js';

/** The relay's part: participants' cars hear neutral during the countdown. */
export interface NeutralHold {
  holdNeutral(carIds: readonly number[]): void;
  releaseNeutral(): void;
}

/** A driver on their car, as the race knows them. */
export type Driver = { userId: number; carId: number };

/**
 * The cars module's part: a race keeps its drivers' cars while it lasts, and their sessions end
 * with it (docs/races.md "When sessions end").
 */
export interface RaceSessions {
  /** A lobby participant: kept while the lobby waits (bounded); answers the session's end. */
  keepForLobby(driver: Driver): Promise<Date | null>;
  /** A race started: its drivers' cars are theirs at least until `until`. */
  keepForRace(drivers: readonly Driver[], until: Date): Promise<void>;
  /** The driver left the lobby with this car: the session's own end counts again. */
  releaseFromRace(driver: Driver): Promise<void>;
  endRaceSessions(drivers: readonly Driver[]): Promise<void>;
}

/** The leaderboards module's part: a finished race counts in its drivers' summaries. */
export interface RaceStats {
  /** Inside the transaction that writes the race's results (once per race). */
  recordRaceIn(tx: Db, raceId: number): Promise<void>;
}

/** The way to the leader's engine, for a follower's commands (scale-out/leader-calls.ts). */
export interface RaceLeader {
  call(name: string, payload: unknown): Promise<unknown>;
  tell(name: string, payload: unknown): void;
}

/** The names of the engine's commands as they travel to the leader (races/race-calls.ts). */
export const RACE_CALLS = {
  join: 'race.join',
  toggleReady: 'race.toggle-ready',
  ping: 'race.ping',
  openLobby: 'race.open-lobby',
  leave: 'race.leave',
  start: 'race.start',
  end: 'race.end',
} as const;

/** A join that cannot be taken now (results being written, engine starting): the client retries. */
export class RaceBusyError extends DomainError {
  constructor(message = 'The race engine is busy; try again in a moment.') {
    super('unavailable', message, ERROR_KEYS.raceBusy);
  }
}

export type FinishReason = 'expired' | 'ended_by_admin' | 'recovered';

/** The admin's audit record, written in the transaction of the change it records. */
export type Audit = (tx: Db, raceId: number | string) => Promise<void>;

export type LiveLeaderboard = ReturnType<typeof liveLeaderboard>;

/** What the race answers and does, on the leader (it runs it) or a follower (it asks the leader). */
export interface RaceRole {
  /** The race state payload (spec §3) as every event socket receives it. */
  state(): RaceState;
  leaderboard(): LiveLeaderboard;
  /** `join_lobby {carId}`: only with a car the member holds right now. */
  join(userId: number, carId: number): Promise<void>;
  /** `toggle_ready`: lobby participants only. */
  toggleReady(userId: number): Promise<void>;
  /** `ping_update {latency}` from a participant (memory only: it changes every 2 s). */
  reportPing(userId: number, latency: number): void;
  /** A raffle was drawn: an empty lobby for its winners; the lobby's race id, or null. */
  openLobby(): Promise<number | null>;
  /**
   * A participant leaves: `leave_lobby`, or their car session ended (the leader hears that fact
   * itself: races.module.ts runs it there). In a race they keep their laps.
   */
  leave(userId: number, carId: number): Promise<void>;
  /** Admin: lobby → countdown; `audit` writes the admin's record in the same transaction. */
  startRace(audit?: Audit): Promise<void>;
  /** Admin: ends the race now (lobby: closes it without results). */
  endRace(audit?: Audit): Promise<void>;
  /** A `lap.passed` fact from the configured lap counter. */
  recordPass(carId: number, at: number): Promise<void>;
}

/**
 * Commands run one at a time (a promise chain), so two joins or a join and a start never
 * interleave their writes, and a change of role waits for the command in flight.
 */
export class CommandQueue {
  #chain: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(work, work);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the commands queued so far are done. */
  async settled(): Promise<void> {
    await this.#chain;
  }
}
