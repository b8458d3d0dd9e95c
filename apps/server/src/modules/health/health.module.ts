/** /api/health and /api/ready: liveness, and readiness once the migrations are done. */
import { defineModule } from '../../module.js';
import { SERVER_VERSION } from '../../paths.js';
import { healthRoutes } from './health.routes.js';

export const healthModule = defineModule({
  name: 'health',
  routes: ({ database, isMigrated }) => [
    { plugin: healthRoutes, options: { database, version: SERVER_VERSION, isMigrated } },
  ],
});
