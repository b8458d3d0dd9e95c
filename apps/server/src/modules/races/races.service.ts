/**
 * The races module's face to the routes and sockets: the admin's actions (audited) around the
 * engine, and the lap counter's state. The engine (race-engine.ts) holds the race itself.
 */
import type { AdminRaceResponse, LapCounterKind } from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import { type AuditActor, recordAudit } from '../../kernel/audit.repo.js';
import type { LapCounter, LapCounterDriver } from './lap-counter.js';
import type { RaceEngine } from './race-engine.js';
import { type Audit, RACE_CALLS } from './race-roles.js';
import { uncountedCars } from './uncounted-cars.js';

export interface RacesServiceDeps {
  engine: RaceEngine;
  lapCounter: LapCounter;
  db: Db;
  bus: EventBus;
  /** What the lap counter calls each car (for names pushed to it). */
  lapCounterIdOf: (carId: number) => string | null;
  /** Whether each car's agent reports its crossings (the `car` counter); null when not heard yet. */
  reportsPasses: (carId: number) => boolean | null;
}

export class RacesService {
  readonly engine: RaceEngine;
  readonly lapCounter: LapCounter;
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #lapCounterIdOf: (carId: number) => string | null;
  readonly #reportsPasses: (carId: number) => boolean | null;

  constructor(deps: RacesServiceDeps) {
    this.engine = deps.engine;
    this.lapCounter = deps.lapCounter;
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#lapCounterIdOf = deps.lapCounterIdOf;
    this.#reportsPasses = deps.reportsPasses;
  }

  /** Connects the lap counter: each pass it sees becomes the `lap.passed` fact. */
  async startLapCounter(): Promise<void> {
    const source = this.lapCounter.kind;
    await this.lapCounter.start(({ carId, at }) => this.#bus.emit('lap.passed', { carId, at, source }));
  }

  get lapCounterKind(): LapCounterKind {
    return this.lapCounter.kind;
  }

  adminView(): AdminRaceResponse {
    const state = this.engine.state();
    return {
      state,
      leaderboard: this.engine.leaderboard(),
      lapCounter: { kind: this.lapCounter.kind, connected: this.lapCounter.isConnected() },
      uncountedCars: uncountedCars(this.lapCounter.kind, state.participants, {
        reportsPasses: this.#reportsPasses,
        lapCounterIdOf: this.#lapCounterIdOf,
      }),
    };
  }

  /** A follower's admin calls run on the leader, which answers its own view (its lap counter's too). */
  start(actor: AuditActor): Promise<AdminRaceResponse> {
    return this.engine.onLeader(RACE_CALLS.start, { actor }, async () => {
      await this.engine.startRace(this.#audit(actor, 'race.start'));
      return this.adminView();
    });
  }

  end(actor: AuditActor): Promise<AdminRaceResponse> {
    return this.engine.onLeader(RACE_CALLS.end, { actor }, async () => {
      const before = this.engine.state().race_status;
      await this.engine.endRace(this.#audit(actor, 'race.end', { ended_from: before }));
      return this.adminView();
    });
  }

  /** Pushes the participants' names to a counter that keeps names; answers how many it named. */
  async syncLapCounter(actor: AuditActor): Promise<number> {
    const drivers: LapCounterDriver[] = this.engine.state().participants.map((p) => ({
      carId: p.carId,
      lapCounterId: this.#lapCounterIdOf(p.carId),
      name: p.username,
    }));
    const synced = await this.lapCounter.syncNames(drivers);
    const raceId = this.engine.state().race_id;
    await this.#audit(actor, 'race.sync-lap-counter', { synced })(this.#db, raceId ?? 'none');
    return synced;
  }

  #audit(
    actor: AuditActor,
    action: 'race.start' | 'race.end' | 'race.sync-lap-counter',
    details: Record<string, unknown> | null = null,
  ): Audit {
    return (tx, raceId: number | string) =>
      recordAudit(tx, { actor, action, targetType: 'race', targetId: raceId, before: null, after: details });
  }
}
