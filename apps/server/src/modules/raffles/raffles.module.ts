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
  needs: ['tickets', 'userCache', 'race'],
  provides: ['raffles'],
  services: ({ config, db, bus, clock, log, services }) => ({
    raffles: new RafflesService({
      db,
      bus,
      clock,
      log,
      tickets: services.tickets,
      userCache: services.userCache,
      lobby: { openLobby: () => services.race.run('open_lobby', {}) },
      prizeClaimMinutes: config.prizeClaimMinutes,
    }),
  }),
  routes: (services) => [{ plugin: adminRaffleRoutes(services) }, { plugin: raffleRoutes(services) }],
  // The race state's raffle status follows the facts (so every instance shows it, issue 15), and
  // so do the open raffle kept in memory and the public answers (published-raffles.ts): only a
  // fact that can change one remakes it — a prize's claim or a member's theme does not.
  on: ({ race, raffles: { published, open } }) => ({
    'raffle.opened': ({ raffleId }) => {
      open.opened(raffleId);
      published.opened(raffleId);
      race.setRaffleStatus('open');
    },
    'raffle.drawn': ({ raffleId }) => {
      open.closed(raffleId);
      published.changed(raffleId);
      race.setRaffleStatus('closed');
    },
    'raffle.aborted': ({ raffleId }) => {
      open.closed(raffleId);
      published.changed(raffleId);
      race.setRaffleStatus('closed');
    },
    'raffle.entered': (entry) => {
      open.entered(entry);
      published.changed(entry.raffleId);
    },
    // An entry's weight is its account's ticket total.
    'tickets.adjusted': ({ userId }) => open.ticketsChanged(userId),
    'tickets.donated': ({ userId }) => open.ticketsChanged(userId),
    'subscription.changed': ({ userId }) => open.ticketsChanged(userId),
    // A link, an unlink, a ban or a deletion of a member.
    'user.changed': ({ userId }) => open.memberChanged(userId),
  }),
  start: async ({ raffles, race }) => {
    race.setRaffleStatus((await raffles.isOpen()) ? 'open' : 'closed');
  },
});
