/** The member's own account: details, profile, theme, password, linked platforms, deletion. */
import { defineModule } from '../../module.js';
import { accountRoutes } from './account.routes.js';
import { AccountService } from './account.service.js';

declare module '../../module.js' {
  interface Services {
    /** The member's own account, and deletion (also the admin's). */
    account: AccountService;
  }
}

export const accountModule = defineModule({
  name: 'account',
  services: ({ db, bus, clock, log }) => ({ account: new AccountService({ db, bus, clock, log }) }),
  routes: () => [{ plugin: accountRoutes }],
});
