/** The admin's members screens: list, login history, ban, role, tickets, deletion (audited). */
import { defineModule } from '../../module.js';
import { adminUserRoutes } from './admin-users.routes.js';

export const adminModule = defineModule({
  name: 'admin',
  routes: () => [{ plugin: adminUserRoutes, prefix: '/admin' }],
});
