/**
 * Raffles (docs/raffle-fairness.md): the publicly verifiable draw, the entries (the chat
 * integrations' `enter`), the winners' prizes and their claim (called by the social sign-in), and
 * the raffle status every race state shows.
 */
import { defineModule } from '../../module.js';
import { adminRaffleRoutes } from './admin-raffle.routes.js';
import { raffleRoutes } from './raffles.routes.js';
import { RafflesService } from './raffles.service.js';

declare module '../../module.js' {
  interface Services {
    /** Raffles, their entries and prizes (raffles.service.ts). */
    raffles: RafflesService;
  }
}

export const rafflesModule = defineModule({
  name: 'raffles',
  services: ({ config, db, bus, clock, log, services }) => ({
    raffles: new RafflesService({
      db,
      bus,
      clock,
      log,
      tickets: services.tickets,
      lobby: services.raceEngine,
      prizeClaimMinutes: config.prizeClaimMinutes,
    }),
  }),
  routes: () => [{ plugin: adminRaffleRoutes }, { plugin: raffleRoutes }],
  // The race state's raffle status follows the facts (so every instance shows it, issue 15).
  on: ({ raceEngine }) => ({
    'raffle.opened': () => raceEngine.setRaffleStatus('open'),
    'raffle.drawn': () => raceEngine.setRaffleStatus('closed'),
    'raffle.aborted': () => raceEngine.setRaffleStatus('closed'),
  }),
  start: async ({ raffles, raceEngine }) => {
    raceEngine.setRaffleStatus((await raffles.isOpen()) ? 'open' : 'closed');
  },
});
