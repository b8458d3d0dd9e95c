/**
 * The members' car list as a read model (car-directory.ts): built before the cars service that
 * answers with it, and read by the race engine.
 */
import { defineModule } from '../../module.js';
import { CarDirectory } from './car-directory.js';

declare module '../../module.js' {
  interface Services {
    carDirectory: CarDirectory;
  }
}

export const carDirectoryModule = defineModule({
  name: 'car-directory',
  provides: ['carDirectory'],
  services: ({ db, log, clock }) => ({ carDirectory: new CarDirectory({ db, log, clock }) }),
  on: ({ carDirectory }) => carDirectory.handlers(),
  start: ({ carDirectory }) => carDirectory.start(),
  stop: ({ carDirectory }) => carDirectory.stop(),
});
