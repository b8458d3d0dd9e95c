/**
 * The race engine as the rest of the server sees it (docs/races.md): one place decides whether
 * this instance leads. With several instances (issue 15, docs/decisions.md "Scale-out"), exactly
 * one runs the race: the leader (scale-out/leadership.ts) — `lead` resumes the leader's engine
 * (leader-engine.ts) from the database as at start-up, `follow` stops its timers at once and
 * hands every command to the follower's proxy (follower-proxy.ts), which sends them to the
 * leader and shows a copy of its race. One process always leads.
 */
import type { RaceState, RaffleStatus } from '@telerace/protocol';
import { FollowerProxy } from './follower-proxy.js';
import { LeaderEngine, type RaceEngineParts } from './leader-engine.js';
import {
  type Audit,
  CommandQueue,
  type LiveLeaderboard,
  type RaceLeader,
  type RaceRole,
} from './race-roles.js';

export interface RaceEngineDeps extends RaceEngineParts {
  /** Several instances: where a follower's commands go. Null (one process): this engine always leads. */
  leader?: RaceLeader | null;
}

export class RaceEngine implements RaceRole {
  readonly #queue = new CommandQueue();
  readonly #engine: LeaderEngine;
  readonly #follower: FollowerProxy;
  readonly #announces: boolean;
  /** Whether this instance runs the race (always, in one process) or follows the leader's. */
  #leading: boolean;
  /** Set by the raffles module (memory only: it reads its own table again at start-up). */
  #raffleStatus: RaffleStatus = 'closed';

  constructor(deps: RaceEngineDeps) {
    const leader = deps.leader ?? null;
    const raffleStatus = () => this.#raffleStatus;
    this.#engine = new LeaderEngine({ ...deps, queue: this.#queue, raffleStatus });
    this.#follower = new FollowerProxy({ ...deps, leader, queue: this.#queue, raffleStatus });
    this.#leading = leader === null;
    this.#announces = leader !== null;
  }

  /** The one place that says who answers: the leader's engine or the follower's proxy. */
  get #role(): RaceRole {
    return this.#leading ? this.#engine : this.#follower;
  }

  /** Whether this instance's engine runs the race (the others follow it). */
  get leads(): boolean {
    return this.#leading;
  }

  state(): RaceState {
    return this.#role.state();
  }

  leaderboard(): LiveLeaderboard {
    return this.#role.leaderboard();
  }

  join(userId: number, carId: number): Promise<void> {
    return this.#role.join(userId, carId);
  }

  toggleReady(userId: number): Promise<void> {
    return this.#role.toggleReady(userId);
  }

  reportPing(userId: number, latency: number): void {
    this.#role.reportPing(userId, latency);
  }

  openLobby(): Promise<number | null> {
    return this.#role.openLobby();
  }

  leave(userId: number, carId: number): Promise<void> {
    return this.#role.leave(userId, carId);
  }

  startRace(audit?: Audit): Promise<void> {
    return this.#role.startRace(audit);
  }

  endRace(audit?: Audit): Promise<void> {
    return this.#role.endRace(audit);
  }

  recordPass(carId: number, at: number): Promise<void> {
    return this.#role.recordPass(carId, at);
  }

  /**
   * An admin's call: run here on the leader, else sent to the leader as `name` with `payload`
   * (the audit is a closure, so the leader's races service makes its own).
   */
  async onLeader<T>(name: string, payload: unknown, here: () => Promise<T>): Promise<T> {
    if (this.#leading) return here();
    return (await this.#follower.toLeader(name, payload)) as T;
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
    this.#follower.forget();
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
    return this.#follower.load(last, () => !this.#leading);
  }

  /** A follower hears the leader's race (`race.changed`); the leader ignores its own. */
  heardState(state: RaceState): void {
    if (!this.#leading) this.#follower.heardState(state);
  }

  /** A follower hears a counted lap's leaderboard (`race.lap-completed`). */
  heardLap(leaderboard: LiveLeaderboard): void {
    if (!this.#leading) this.#follower.heardLap(leaderboard);
  }
}
