/**
 * The members' car list as a read model (car-directory.ts): built before the relay and the video,
 * which read a car's config and stream from it, and before the cars service that answers with it.
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
  services: ({ db, bus, log, clock }) => ({
    carDirectory: new CarDirectory(db, bus, log, () => clock.now().getTime()),
  }),
  start: ({ carDirectory }) => carDirectory.start(),
  stop: ({ carDirectory }) => carDirectory.stop(),
});
