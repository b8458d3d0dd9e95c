/**
 * The race as the rest of the server sees it (docs/races.md): one place decides whether this
 * instance leads. With several instances (issue 15, docs/decisions.md "Scale-out"), exactly one
 * runs the race: the leader (scale-out/leadership.ts) — `lead` resumes its engine (race-engine.ts)
 * from the database as at start-up, `follow` stops the engine's timers at once and shows a copy of
 * the leader's race (followed-race.ts). Commands run as their table says (race-commands.ts): here
 * while this instance leads, else sent to the leader, which answers them through
 * `answerFollowers`. One process always leads.
 */
import type { AdminRaceResponse, RaceState, RaffleStatus } from '@telerace/protocol';
import { type LeaderHandler, NoLeaderError } from '../../scale-out/leader-calls.js';
import { FollowedRace } from './followed-race.js';
import {
  RACE_COMMANDS,
  type RaceAnswer,
  type RaceCommandContext,
  type RaceCommandName,
  type RaceCommandRunner,
  type RacePayload,
} from './race-commands.js';
import { RaceEngine, type RaceEngineParts } from './race-engine.js';
import {
  CommandQueue,
  type Driver,
  type LiveLeaderboard,
  RaceBusyError,
  type RaceFactReactions,
  type RaceLeader,
  type RaceReads,
} from './race-roles.js';

export interface RaceDeps extends RaceEngineParts {
  /** Several instances: where a follower's commands go. Null (one process): this engine always leads. */
  leader?: RaceLeader | null;
  /** The admin's start and end answer the Race Control tab as the leader sees it (races.service.ts). */
  adminView(): AdminRaceResponse;
}

type Command = (typeof RACE_COMMANDS)[RaceCommandName];
/** Each command by the name it travels under to the leader. */
const BY_CALL = new Map<string, Command>(
  Object.values(RACE_COMMANDS).map((declared) => [declared.call, declared]),
);

export class Race implements RaceReads, RaceFactReactions, RaceCommandRunner {
  readonly #queue = new CommandQueue();
  readonly #engine: RaceEngine;
  readonly #followed: FollowedRace;
  readonly #leader: RaceLeader | null;
  readonly #context: RaceCommandContext;
  readonly #announces: boolean;
  /** Whether this instance runs the race (always, in one process) or follows the leader's. */
  #leading: boolean;
  /** Set by the raffles module (memory only: it reads its own table again at start-up). */
  #raffleStatus: RaffleStatus = 'closed';

  constructor(deps: RaceDeps) {
    this.#leader = deps.leader ?? null;
    const raffleStatus = () => this.#raffleStatus;
    this.#engine = new RaceEngine({ ...deps, queue: this.#queue, raffleStatus });
    this.#followed = new FollowedRace({ ...deps, queue: this.#queue, raffleStatus });
    this.#context = { engine: this.#engine, adminView: () => deps.adminView() };
    this.#leading = this.#leader === null;
    this.#announces = this.#leader !== null;
  }

  /** The one place that says who shows the race: the leader's engine or the follower's copy. */
  get #shown(): RaceReads {
    return this.#leading ? this.#engine : this.#followed;
  }

  /** Whether this instance's engine runs the race (the others follow it). */
  get leads(): boolean {
    return this.#leading;
  }

  state(): RaceState {
    return this.#shown.state();
  }

  leaderboard(): LiveLeaderboard {
    return this.#shown.leaderboard();
  }

  /** A command (race-commands.ts), run here on the leader, else sent to it. */
  async run<N extends RaceCommandName>(name: N, payload: RacePayload<N>): Promise<RaceAnswer<N>> {
    const declared: Command = RACE_COMMANDS[name];
    if (this.#leading) return (await this.#runHere(declared, payload)) as RaceAnswer<N>;
    if (declared.forward === 'tell') {
      this.#leader?.tell(declared.call, payload);
      return undefined as RaceAnswer<N>;
    }
    return (await this.#toLeader(declared.call, payload)) as RaceAnswer<N>;
  }

  /**
   * The leader's side of its followers' commands: each checked by its schema and run here as if it
   * had arrived here. One that reaches an instance which no longer leads is refused as busy: the
   * client retries and finds the new leader.
   */
  answerFollowers(): LeaderHandler {
    return async (call, payload) => {
      if (!this.#leading) throw new RaceBusyError();
      const declared = BY_CALL.get(call);
      if (!declared) throw new Error(`unknown leader call ${call}`);
      return this.#runHere(declared, declared.payload.parse(payload));
    };
  }

  /** The engine acts on it on the leader; a follower leaves it to the leader (race-roles.ts). */
  sessionEnded(driver: Driver): Promise<void> {
    return this.#leading ? this.#engine.sessionEnded(driver) : Promise.resolve();
  }

  /**
   * Only the leader counts a pass (`lap.passed` is handled there); one heard while the leadership
   * changes hands is not counted, as any pass while no engine runs.
   */
  lapPassed(carId: number, at: number): Promise<void> {
    return this.#leading ? this.#engine.lapPassed(carId, at) : Promise.resolve();
  }

  /** Whether a raffle is open, as every race state shows it (the raffles module says so). */
  setRaffleStatus(status: RaffleStatus): void {
    if (status === this.#raffleStatus) return;
    this.#raffleStatus = status;
    // Every instance hears the raffle's facts: only the leader publishes the race state for them.
    if (this.#leading) this.#engine.republish();
  }

  /** Resolves once the commands queued so far are done (tests; a stop waits for a write in flight). */
  settled(): Promise<void> {
    return this.#queue.settled();
  }

  stop(): void {
    this.#engine.stop();
  }

  /** This instance became the leader: its engine resumes the race from the database. */
  async lead(): Promise<void> {
    if (this.#leading && this.#engine.loaded) return;
    this.#leading = true;
    this.#followed.forget();
    await this.#engine.resume(this.#announces);
  }

  /**
   * This instance no longer leads (or never did): the timers stop now and commands go to the
   * leader from now on; the race shown is a copy loaded from the database, then kept from the facts.
   */
  follow(): Promise<void> {
    const last = this.#leading ? this.#engine.state() : null;
    this.#leading = false;
    this.#engine.pause();
    return this.#followed.load(last, () => !this.#leading);
  }

  /** A follower hears the leader's race (`race.changed`); the leader ignores its own. */
  heardState(state: RaceState): void {
    if (!this.#leading) this.#followed.heardState(state);
  }

  /** A follower hears a counted lap's leaderboard (`race.lap-completed`). */
  heardLap(leaderboard: LiveLeaderboard): void {
    if (!this.#leading) this.#followed.heardLap(leaderboard);
  }

  #runHere(declared: Command, payload: unknown): Promise<unknown> | unknown {
    // Each declaration's handler takes its own payload: checked by the caller's types or the schema.
    return (declared.run as (context: RaceCommandContext, payload: unknown) => unknown)(
      this.#context,
      payload,
    );
  }

  /** A follower's command, run by the leader; "no leader right now" is a busy engine: retry. */
  async #toLeader(call: string, payload: unknown): Promise<unknown> {
    if (!this.#leader) throw new RaceBusyError();
    try {
      return await this.#leader.call(call, payload);
    } catch (error) {
      if (error instanceof NoLeaderError) throw new RaceBusyError();
      throw error;
    }
  }
}
