/**
 * Races (docs/races.md): the race engine, the lap counter feeding it, and the admin's race calls.
 * The event socket (events module) carries the race to the browsers.
 */
import { defineModule } from '../../module.js';
import { adminRaceRoutes } from './admin-race.routes.js';
import { LapCounterIds } from './lap-counter-ids.js';
import { createLapCounter } from './lap-counters/index.js';
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
  services: ({ config, db, bus, clock, log, services }) => {
    const raceEngine = new RaceEngine({
      db,
      bus,
      clock,
      log,
      settings: services.settings,
      directory: services.carDirectory,
      relay: services.carRelay,
      sessions: services.cars,
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
    });
    return { raceEngine, races, lapCounterIds };
  },
  routes: () => [{ plugin: adminRaceRoutes }],
  on: ({ raceEngine, races, lapCounterIds }) => ({
    'lap.passed': ({ carId, at, source }) => {
      if (source === races.lapCounterKind) return raceEngine.recordPass(carId, at);
    },
    'car.session-ended': ({ userId, carId }) => raceEngine.leave(userId, carId),
    'car.lap-counter-id-changed': ({ carId, lapCounterId }) => lapCounterIds.set(carId, lapCounterId),
    'car.deleted': ({ carId }) => lapCounterIds.remove(carId),
  }),
  start: async ({ raceEngine, races, lapCounterIds }) => {
    await lapCounterIds.load();
    await raceEngine.start();
    await races.startLapCounter();
  },
  stop: async ({ raceEngine, races }) => {
    raceEngine.stop();
    await raceEngine.settled();
    await races.lapCounter.stop();
  },
});
