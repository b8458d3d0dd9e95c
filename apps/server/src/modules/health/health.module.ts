/**
 * /api/health and /api/ready: liveness, and readiness once the migrations are done; and the
 * operators' health details (the metrics port's GET /health reads the `health` service).
 */
import { defineModule } from '../../module.js';
import { SERVER_VERSION } from '../../paths.js';
import { healthRoutes } from './health.routes.js';
import { HealthCheck } from './health-check.js';

declare module '../../module.js' {
  interface Services {
    /** The database kind, the version and the database's state, for the operators' probe. */
    health: HealthCheck;
  }
}

export const healthModule = defineModule({
  name: 'health',
  provides: ['health'],
  services: ({ database }) => ({ health: new HealthCheck({ database, version: SERVER_VERSION }) }),
  routes: (_services, { database, isMigrated }) => [{ plugin: healthRoutes({ database, isMigrated }) }],
});
