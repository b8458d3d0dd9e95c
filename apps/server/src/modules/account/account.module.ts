/** The member's own account: details, profile, theme, password, linked platforms, deletion. */
import { defineModule } from '../../module.js';
import { accountRoutes } from './account.routes.js';
import { AccountService } from './account.service.js';
import { AddressChangeLimiter } from './address-changes.js';
import {
  WRONG_CURRENT_PASSWORDS_PER_HOUR,
  WRONG_CURRENT_PASSWORDS_WINDOW_MS,
  WrongPasswordBudget,
} from './wrong-passwords.js';

declare module '../../module.js' {
  interface Services {
    /** The member's own account, and deletion (also the admin's). */
    account: AccountService;
  }
}

export const accountModule = defineModule({
  name: 'account',
  needs: ['auth'],
  uses: ['tickets'],
  provides: ['account'],
  // The limits' counts are shared by every instance with REDIS_URL (scale-out/limit-stores.ts).
  services: ({ db, bus, clock, log, services, limitStores }) => ({
    account: new AccountService({
      db,
      bus,
      clock,
      log,
      sessions: services.auth,
      wrongPasswords: new WrongPasswordBudget(
        limitStores.window<number>(
          'wrong-current-passwords',
          WRONG_CURRENT_PASSWORDS_PER_HOUR,
          WRONG_CURRENT_PASSWORDS_WINDOW_MS,
        ),
      ),
      addressChanges: new AddressChangeLimiter({ windows: limitStores.window }),
    }),
  }),
  routes: (services, { config }) => [{ plugin: accountRoutes(services, config) }],
});
