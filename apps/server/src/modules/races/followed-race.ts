/**
 * A follower's race (issue 15, docs/decisions.md "Scale-out"): a copy of the leader's, loaded from
 * the database when this instance starts following, then kept from the `race.changed` and
 * `race.lap-completed` facts. It runs no command: race.ts sends every command to the leader, as
 * race-commands.ts declares, and the facts the engine acts on (`lap.passed`, a session that ended)
 * are handled on the leader only (races.module.ts).
 */
import type { RaceState, RaffleStatus } from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { CarDirectory } from '../cars/car-directory.js';
import { liveLeaderboard } from './lap-rules.js';
import { findUnfinishedRace } from './race.repo.js';
import * as machine from './race-machine.js';
import type { CommandQueue, LiveLeaderboard, RaceReads } from './race-roles.js';
import { freshStanding, presentRace, restoredState, standingOf } from './race-view.js';

interface FollowedRaceDeps {
  db: Db;
  clock: Clock;
  directory: Pick<CarDirectory, 'get'>;
  queue: CommandQueue;
  raffleStatus: () => RaffleStatus;
}

export class FollowedRace implements RaceReads {
  readonly #deps: FollowedRaceDeps;
  /** The copy of the leader's race and leaderboard. */
  #followed: RaceState | null = null;
  #followedBoard: LiveLeaderboard = [];
  /** A fact heard while the copy was loading from the database (the fact is newer). */
  #heardWhileLoading = false;

  constructor(deps: FollowedRaceDeps) {
    this.#deps = deps;
  }

  state(): RaceState {
    const copy = this.#followed ?? this.#present(machine.IDLE);
    return { ...copy, raffle_status: this.#deps.raffleStatus() };
  }

  leaderboard(): LiveLeaderboard {
    return this.#followedBoard;
  }

  /**
   * Starts following: `last` (the race this instance led until now, if it did) is shown until the
   * copy is loaded from the database, after the commands in flight; a fact heard meanwhile wins.
   * `stillFollowing` says whether this instance still follows once the database answers.
   */
  load(last: RaceState | null, stillFollowing: () => boolean): Promise<void> {
    if (last) this.#followed = last;
    this.#heardWhileLoading = false;
    return this.#deps.queue.run(async () => {
      const found = await findUnfinishedRace(this.#deps.db);
      if (this.#heardWhileLoading || !stillFollowing()) return;
      const restored = found ? restoredState(found) : machine.IDLE;
      this.#keep(this.#present(restored));
      this.#followedBoard = found
        ? liveLeaderboard(found.participants.map((p, order) => standingOf(p, order)))
        : [];
    });
  }

  /** This instance leads now: the copy goes. */
  forget(): void {
    this.#followed = null;
  }

  /** The leader's race (`race.changed`). */
  heardState(state: RaceState): void {
    this.#heardWhileLoading = true;
    this.#keep(state);
  }

  /** A counted lap's leaderboard (`race.lap-completed`). */
  heardLap(leaderboard: LiveLeaderboard): void {
    this.#followedBoard = leaderboard;
  }

  #keep(state: RaceState): void {
    const before = this.#followed;
    this.#followed = state;
    // A new race's board starts from its participants at zero laps (the leader's does too).
    if (state.race_status === 'idle' || state.race_status === 'lobby') this.#followedBoard = [];
    else if (before?.race_id !== state.race_id || before?.race_status === 'lobby')
      this.#followedBoard = liveLeaderboard(state.participants.map((p, order) => freshStanding(p, order)));
  }

  #present(s: machine.RaceMachineState): RaceState {
    return presentRace(s, this.#deps.clock.now().getTime(), this.#deps.raffleStatus(), this.#deps.directory);
  }
}
