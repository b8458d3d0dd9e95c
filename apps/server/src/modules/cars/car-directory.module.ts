/**
 * The members' car list as a read model (car-directory.ts), and the car lookups of the relay and
 * the video (car-lookups.ts): built before them and before the cars service that answers with them.
 */
import { defineModule } from '../../module.js';
import { CarDirectory } from './car-directory.js';
import { CarLookups } from './car-lookups.js';

declare module '../../module.js' {
  interface Services {
    carDirectory: CarDirectory;
    /** A car's limits, stream and driver as the relay and the video read them (car-lookups.ts). */
    carLookups: CarLookups;
  }
}

export const carDirectoryModule = defineModule({
  name: 'car-directory',
  services: ({ db, log, clock }) => ({
    carDirectory: new CarDirectory({ db, log, clock }),
    carLookups: new CarLookups({ db, clock }),
  }),
  on: ({ carDirectory }) => carDirectory.handlers(),
  start: ({ carDirectory }) => carDirectory.start(),
  stop: ({ carDirectory }) => carDirectory.stop(),
});
