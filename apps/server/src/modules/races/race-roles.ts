/**
 * What the race's two roles share (race.ts picks one): the engine that runs the race on the leader
 * (race-engine.ts) and the follower's copy of it (followed-race.ts). Both answer `RaceReads`, run
 * their work on one `CommandQueue`, and reach the rest of the server through the ports below. The
 * commands are declared in race-commands.ts; the facts the race reacts to, in `RaceFactReactions`.
 */
import { ERROR_KEYS, type RaceState } from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import { type AuditActor, recordAudit } from '../../kernel/audit.repo.js';
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

/** A join that cannot be taken now (results being written, engine starting): the client retries. */
export class RaceBusyError extends DomainError {
  constructor(message = 'The race engine is busy; try again in a moment.') {
    super('unavailable', message, ERROR_KEYS.raceBusy);
  }
}

export type FinishReason = 'expired' | 'ended_by_admin' | 'recovered';

/** The admin's audit record, written in the transaction of the change it records. */
export type Audit = (tx: Db, raceId: number | string) => Promise<void>;

/** The audit record of an admin's race action, for the transaction that makes it. */
export function raceAudit(
  actor: AuditActor,
  action: 'race.start' | 'race.end' | 'race.sync-lap-counter',
  details: Record<string, unknown> | null = null,
): Audit {
  return (tx, raceId) =>
    recordAudit(tx, { actor, action, targetType: 'race', targetId: raceId, before: null, after: details });
}

export type LiveLeaderboard = ReturnType<typeof liveLeaderboard>;

/** What the race shows, on the leader (its engine's) or a follower (its copy of the leader's). */
export interface RaceReads {
  /** The race state payload (spec §3) as every event socket receives it. */
  state(): RaceState;
  leaderboard(): LiveLeaderboard;
}

/**
 * What the race does about facts: nobody asked, nothing is answered, nothing is forwarded. The
 * leader acts on them (races.module.ts `onLeader`); a follower hearing one while the leadership
 * changes hands ignores it, and the next leader resumes from the database.
 */
export interface RaceFactReactions {
  /** `car.session-ended`: the driver leaves the lobby; in a race they keep their laps. */
  sessionEnded(driver: Driver): Promise<void>;
  /** `lap.passed` from the configured lap counter. */
  lapPassed(carId: number, at: number): Promise<void>;
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
