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
  services: ({ db, log, clock }) => ({
    carDirectory: new CarDirectory(db, log, () => clock.now().getTime()),
  }),
  on: ({ carDirectory }) => carDirectory.handlers(),
  start: ({ carDirectory }) => carDirectory.start(),
  stop: ({ carDirectory }) => carDirectory.stop(),
});
