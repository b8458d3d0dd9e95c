/**
 * Races (docs/races.md): the race engine, the lap counter feeding it, and the admin's race calls.
 * The event socket (events module) carries the race to the browsers.
 */
import { defineModule } from '../../module.js';
import { adminRaceRoutes } from './admin-race.routes.js';
import { LapCounterIds } from './lap-counter-ids.js';
import { createLapCounter } from './lap-counters/index.js';
import { raceCallHandler } from './race-calls.js';
import { RaceEngine } from './race-engine.js';
import { RacesService } from './races.service.js';

declare module '../../module.js' {
  interface Services {
    /** The race engine: state, commands, laps (race-engine.ts). */
    raceEngine: RaceEngine;
    /** The admin's race actions and the lap counter (races.service.ts). */
    races: RacesService;
    /** Which car each transponder / pilot id belongs to (lap-counter-ids.ts). */
    lapCounterIds: LapCounterIds;
  }
}

export const racesModule = defineModule({
  name: 'races',
  needs: [
    'settings',
    'carDirectory',
    'carRelay',
    'drivingSessions',
    'leaderboards',
    'leaderCalls',
    'leadership',
  ],
  provides: ['raceEngine', 'races', 'lapCounterIds'],
  services: ({ config, db, bus, clock, log, services }) => {
    const raceEngine = new RaceEngine({
      db,
      bus,
      clock,
      log,
      settings: services.settings,
      directory: services.carDirectory,
      relay: services.carRelay,
      sessions: services.drivingSessions,
      stats: services.leaderboards,
      leader: services.leaderCalls,
    });
    const lapCounterIds = new LapCounterIds({ db });
    const lapCounter = createLapCounter(config, {
      log,
      cars: lapCounterIds,
      now: () => clock.now().getTime(),
    });
    const races = new RacesService({
      engine: raceEngine,
      lapCounter,
      db,
      bus,
      lapCounterIdOf: (carId) => lapCounterIds.lapCounterIdOf(carId),
      reportsPasses: (carId) => services.carRelay.reportsPasses(carId),
    });
    return { raceEngine, races, lapCounterIds };
  },
  routes: (services) => [{ plugin: adminRaceRoutes(services) }],
  on: ({ raceEngine, lapCounterIds }) => ({
    // A follower's copy of the leader's race (the leader ignores its own facts).
    'race.changed': ({ state }) => raceEngine.heardState(state),
    'race.lap-completed': ({ leaderboard }) => raceEngine.heardLap(leaderboard),
    'car.lap-counter-id-changed': ({ carId, lapCounterId }) => lapCounterIds.set(carId, lapCounterId),
    'car.deleted': ({ carId }) => lapCounterIds.remove(carId),
  }),
  // What the engine acts on runs where it runs: a pass counts once, a driver leaves once.
  onLeader: ({ raceEngine, races }) => ({
    'lap.passed': ({ carId, at, source }) => {
      if (source === races.lapCounterKind) return raceEngine.recordPass(carId, at);
    },
    'car.session-ended': ({ userId, carId }) => raceEngine.leave(userId, carId),
  }),
  // The engine's timers, its lap counting and a hardware lap counter run on the leader only
  // (scale-out/leadership.ts; one process always leads).
  start: async ({ raceEngine, races, lapCounterIds, leadership, leaderCalls }) => {
    await lapCounterIds.load();
    await leadership.assign({
      name: 'races',
      lead: async () => {
        await raceEngine.lead();
        await races.startLapCounter();
        await leaderCalls?.serve(raceCallHandler(raceEngine, races));
      },
      follow: async () => {
        // Called first: the engine's timers stop in this very step, before anything is awaited.
        const following = raceEngine.follow();
        await leaderCalls?.unserve();
        await races.lapCounter.stop();
        await following;
      },
    });
  },
  stop: async ({ raceEngine, races, leaderCalls }) => {
    await leaderCalls?.unserve();
    raceEngine.stop();
    await raceEngine.settled();
    await races.lapCounter.stop();
  },
});
