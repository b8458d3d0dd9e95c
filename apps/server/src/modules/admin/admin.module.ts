/** The admin's members screens: list, login history, ban, role, tickets, deletion (audited). */
import { defineModule } from '../../module.js';
import { adminUserRoutes } from './admin-users.routes.js';
import { AdminUsersService } from './admin-users.service.js';

declare module '../../module.js' {
  interface Services {
    /** Admin actions on members, each with its audit record. */
    adminUsers: AdminUsersService;
  }
}

export const adminModule = defineModule({
  name: 'admin',
  needs: ['tickets', 'account', 'auth'],
  provides: ['adminUsers'],
  services: ({ db, bus, clock, log, services }) => ({
    adminUsers: new AdminUsersService({
      db,
      bus,
      clock,
      log,
      tickets: services.tickets,
      account: services.account,
      sessions: services.auth,
    }),
  }),
  routes: (services) => [{ plugin: adminUserRoutes(services), prefix: '/admin' }],
});
