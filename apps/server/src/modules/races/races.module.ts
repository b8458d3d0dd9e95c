/**
 * Races (docs/races.md): the race engine, the lap counter feeding it, and the admin's race calls.
 * The event socket (the race-feed module) carries the race to the browsers.
 */
import { defineModule } from '../../module.js';
import { adminRaceRoutes } from './admin-race.routes.js';
import { LapCounterIds } from './lap-counter-ids.js';
import { createLapCounter } from './lap-counters/index.js';
import { Race } from './race.js';
import { RacesService } from './races.service.js';

declare module '../../module.js' {
  interface Services {
    /** The race: its state, its commands (race-commands.ts), the facts it acts on (race.ts). */
    race: Race;
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
  provides: ['race', 'races', 'lapCounterIds'],
  services: ({ config, db, bus, clock, log, services }) => {
    const race = new Race({
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
      // Built just below; asked only once a command runs.
      adminView: () => races.adminView(),
    });
    const lapCounterIds = new LapCounterIds({ db });
    const lapCounter = createLapCounter(config, {
      log,
      cars: lapCounterIds,
      now: () => clock.now().getTime(),
    });
    const races = new RacesService({
      race,
      lapCounter,
      db,
      bus,
      lapCounterIdOf: (carId) => lapCounterIds.lapCounterIdOf(carId),
      reportsPasses: (carId) => services.carRelay.reportsPasses(carId),
    });
    return { race, races, lapCounterIds };
  },
  routes: (services) => [{ plugin: adminRaceRoutes(services) }],
  on: ({ race, lapCounterIds }) => ({
    // A follower's copy of the leader's race (the leader ignores its own facts).
    'race.changed': ({ state }) => race.heardState(state),
    'race.lap-completed': ({ leaderboard }) => race.heardLap(leaderboard),
    'car.lap-counter-id-changed': ({ carId, lapCounterId }) => lapCounterIds.set(carId, lapCounterId),
    'car.deleted': ({ carId }) => lapCounterIds.remove(carId),
  }),
  // The facts the engine acts on (race-roles.ts RaceFactReactions) run where it runs: a pass
  // counts once, a driver leaves once.
  onLeader: ({ race, races }) => ({
    'lap.passed': ({ carId, at, source }) => {
      if (source === races.lapCounterKind) return race.lapPassed(carId, at);
    },
    'car.session-ended': ({ userId, carId }) => race.sessionEnded({ userId, carId }),
  }),
  // The engine's timers, its lap counting and a hardware lap counter run on the leader only
  // (scale-out/leadership.ts; one process always leads).
  start: async ({ race, races, lapCounterIds, leadership, leaderCalls }) => {
    await lapCounterIds.load();
    await leadership.assign({
      name: 'races',
      lead: async () => {
        await race.lead();
        await races.startLapCounter();
        await leaderCalls?.serve(race.answerFollowers());
      },
      follow: async () => {
        // Called first: the engine's timers stop in this very step, before anything is awaited.
        const following = race.follow();
        await leaderCalls?.unserve();
        await races.lapCounter.stop();
        await following;
      },
    });
  },
  stop: async ({ race, races, leaderCalls }) => {
    await leaderCalls?.unserve();
    race.stop();
    await race.settled();
    await races.lapCounter.stop();
  },
});
