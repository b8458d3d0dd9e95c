/** GET /api/public-config: what the web app needs to know about this deployment. */
import { defineModule } from '../../module.js';
import { publicConfigRoutes } from './public-config.routes.js';

export const publicConfigModule = defineModule({
  name: 'public-config',
  routes: (_services, { config }) => [{ plugin: publicConfigRoutes(config) }],
});
