/** The member's own account: details, profile, theme, password, linked platforms, deletion. */
import { defineModule } from '../../module.js';
import { accountRoutes } from './account.routes.js';

export const accountModule = defineModule({
  name: 'account',
  routes: () => [{ plugin: accountRoutes }],
});
