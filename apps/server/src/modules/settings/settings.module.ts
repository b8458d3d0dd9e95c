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
  provides: ['settings'],
  services: ({ db, bus, clock }) => ({ settings: new SettingsService({ db, bus, clock }) }),
  routes: (services) => [{ plugin: settingsRoutes(services) }],
  // What an admin saved on any instance is in force on every one.
  on: ({ settings }) => ({ 'settings.changed': ({ settings: saved }) => settings.applied(saved) }),
  start: async ({ settings }) => {
    await settings.load();
  },
});
