/** Run-time settings an admin changes (car session duration, race settings), held in memory. */
import { defineModule } from '../../module.js';
import { settingsRoutes } from './settings.routes.js';
import { SettingsService } from './settings.service.js';

declare module '../../module.js' {
  interface Services {
    /** The admin's run-time settings, in memory (settings.service.ts). */
    settings: SettingsService;
  }
}

export const settingsModule = defineModule({
  name: 'settings',
  services: ({ db, bus, clock }) => ({ settings: new SettingsService({ db, bus, clock }) }),
  routes: () => [{ plugin: settingsRoutes }],
  start: async ({ settings }) => {
    await settings.load();
  },
});
