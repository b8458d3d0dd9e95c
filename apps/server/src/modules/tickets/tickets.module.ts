/** Members' raffle tickets (spec §9): counted from the ledger, adjusted by admins and donations. */
import { defineModule } from '../../module.js';
import { TicketsService } from './tickets.service.js';

declare module '../../module.js' {
  interface Services {
    /** Tickets of members and the ledger entries that change them. */
    tickets: TicketsService;
  }
}

export const ticketsModule = defineModule({
  name: 'tickets',
  provides: ['tickets'],
  services: ({ db, bus, clock, log }) => ({ tickets: new TicketsService({ db, bus, clock, log }) }),
});
