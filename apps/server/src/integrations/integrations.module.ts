/**
 * The chat and stream integrations' hub (docs/integrations.md): each platform is its own module
 * (twitch/, youtube/, discord/, tips/) that starts only when its settings are present and hands
 * what viewers do to this hub, which turns it into raffle entries and tickets.
 */
import { defineModule } from '../module.js';
import { integrationsRoutes } from './integrations.routes.js';
import { IntegrationsService } from './integrations.service.js';

declare module '../module.js' {
  interface Services {
    /** Join commands, donations and subscriptions from every platform; integration states. */
    integrations: IntegrationsService;
  }
}

export const integrationsModule = defineModule({
  name: 'integrations',
  services: ({ config, db, clock, log, services }) => ({
    integrations: new IntegrationsService({
      db,
      clock,
      log: log.child({ module: 'integrations' }),
      raffles: services.raffles,
      tickets: services.tickets,
      settings: {
        joinCommand: config.chatJoinCommand,
        language: config.chatLanguage,
        usdRates: config.donationUsdRates,
      },
    }),
  }),
  routes: () => [{ plugin: integrationsRoutes }],
  // One answer per viewer and raffle: a new raffle, or the end of one, starts a new round.
  on: ({ integrations }) => ({
    'raffle.opened': () => integrations.newRound(),
    'raffle.drawn': () => integrations.newRound(),
    'raffle.aborted': () => integrations.newRound(),
  }),
});
