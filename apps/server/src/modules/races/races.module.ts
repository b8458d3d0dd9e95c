/**
 * Races (docs/races.md): the race engine, the lap counter feeding it, and the admin's race calls.
 * The event socket (events module) carries the race to the browsers.
 */
import type { LapCounterKind } from '@telerace/protocol';
import { defineModule } from '../../module.js';
import { adminRaceRoutes } from './admin-race.routes.js';
import type { LapCounter } from './lap-counter.js';
import { RaceEngine } from './race-engine.js';
import { RacesService } from './races.service.js';

declare module '../../module.js' {
  interface Services {
    /** The race engine: state, commands, laps (race-engine.ts). */
    raceEngine: RaceEngine;
    /** The admin's race actions and the lap counter (races.service.ts). */
    races: RacesService;
  }
}

/** The `car` lap counter: passes arrive from the relay as `lap.passed` facts; it keeps no names. */
const carLapCounter: LapCounter = {
  kind: 'car' as LapCounterKind,
  start: () => undefined,
  stop: () => undefined,
  isConnected: () => true,
  syncNames: async () => 0,
};

export const racesModule = defineModule({
  name: 'races',
  services: ({ db, bus, clock, log, services }) => {
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
    return {
      raceEngine,
      races: new RacesService({
        engine: raceEngine,
        lapCounter: carLapCounter,
        db,
        bus,
        lapCounterIdOf: () => null,
      }),
    };
  },
  routes: () => [{ plugin: adminRaceRoutes }],
  on: ({ raceEngine, races }) => ({
    'lap.passed': ({ carId, at, source }) => {
      if (source === races.lapCounterKind) return raceEngine.recordPass(carId, at);
    },
    'car.session-ended': ({ userId, carId }) => raceEngine.leave(userId, carId),
  }),
  start: async ({ raceEngine, races }) => {
    await raceEngine.start();
    await races.startLapCounter();
  },
  stop: async ({ raceEngine, races }) => {
    raceEngine.stop();
    await races.lapCounter.stop();
  },
});
