/**
 * The races module's face to the admin routes: the Race Control view, the admin's actions (audited,
 * declared with the other commands in race-commands.ts) and the lap counter's state. The race
 * itself is race.ts's.
 */
import type { AdminRaceResponse, LapCounterKind } from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import type { AuditActor } from '../../kernel/audit.repo.js';
import type { LapCounter, LapCounterDriver } from './lap-counter.js';
import type { Race } from './race.js';
import { raceAudit } from './race-roles.js';
import { uncountedCars } from './uncounted-cars.js';

export interface RacesServiceDeps {
  race: Race;
  lapCounter: LapCounter;
  db: Db;
  bus: EventBus;
  /** What the lap counter calls each car (for names pushed to it). */
  lapCounterIdOf: (carId: number) => string | null;
  /** Whether each car's agent reports its crossings (the `car` counter); null when not heard yet. */
  reportsPasses: (carId: number) => boolean | null;
}

export class RacesService {
  readonly race: Race;
  readonly lapCounter: LapCounter;
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #lapCounterIdOf: (carId: number) => string | null;
  readonly #reportsPasses: (carId: number) => boolean | null;

  constructor(deps: RacesServiceDeps) {
    this.race = deps.race;
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
    const state = this.race.state();
    return {
      state,
      leaderboard: this.race.leaderboard(),
      lapCounter: { kind: this.lapCounter.kind, connected: this.lapCounter.isConnected() },
      uncountedCars: uncountedCars(this.lapCounter.kind, state.participants, {
        reportsPasses: this.#reportsPasses,
        lapCounterIdOf: this.#lapCounterIdOf,
      }),
    };
  }

  /** Run on the leader, which answers its own view (its lap counter's too). */
  start(actor: AuditActor): Promise<AdminRaceResponse> {
    return this.race.run('start_race', { actor });
  }

  end(actor: AuditActor): Promise<AdminRaceResponse> {
    return this.race.run('end_race', { actor });
  }

  /** Pushes the participants' names to a counter that keeps names; answers how many it named. */
  async syncLapCounter(actor: AuditActor): Promise<number> {
    const drivers: LapCounterDriver[] = this.race.state().participants.map((p) => ({
      carId: p.carId,
      lapCounterId: this.#lapCounterIdOf(p.carId),
      name: p.username,
    }));
    const synced = await this.lapCounter.syncNames(drivers);
    const raceId = this.race.state().race_id;
    await raceAudit(actor, 'race.sync-lap-counter', { synced })(this.#db, raceId ?? 'none');
    return synced;
  }
}
