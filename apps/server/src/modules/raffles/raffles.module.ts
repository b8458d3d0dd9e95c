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
  on: ({ raceEngine, raffles }) => {
    const forget = () => raffles.forgetPublicAnswers();
    return {
      'raffle.opened': () => {
        forget();
        raceEngine.setRaffleStatus('open');
      },
      'raffle.drawn': () => {
        forget();
        raceEngine.setRaffleStatus('closed');
      },
      'raffle.aborted': () => {
        forget();
        raceEngine.setRaffleStatus('closed');
      },
      'raffle.entered': forget,
      'prizes.cleared': forget,
      'prize.claimed': forget,
      'prize.released': forget,
      // An entry's weight is its account's ticket total.
      'tickets.adjusted': forget,
      'tickets.donated': forget,
      'subscription.changed': forget,
      'user.changed': forget,
    };
  },
  start: async ({ raffles, raceEngine }) => {
    raceEngine.setRaffleStatus((await raffles.isOpen()) ? 'open' : 'closed');
  },
});
