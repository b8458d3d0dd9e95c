/**
 * Scale-out (issue 15, docs/operations.md "Scaling"): with `REDIS_URL`, several server instances
 * share one PostgreSQL and pass their facts through Redis. Without it, everything stays in one
 * process, as the embedded quick start runs.
 */
import { configError, defineSection, setting } from '../config/define.js';
import { urlOf } from '../config/schemas.js';

export const scaleOutConfig = defineSection(
  {
    redisUrl: setting({
      env: 'REDIS_URL',
      schema: urlOf(['redis', 'rediss'], 'a'),
      default: null,
      doc: 'Redis for several instances (`redis://127.0.0.1:6379`): domain events, the relay between a driver and a car on different instances, shared rate limits. Needs `DATABASE_URL` (PostgreSQL). Unset: one process.',
      secret: true,
    }),
  },
  (values, earlier: { databaseUrl?: string | null }) => {
    if (values.redisUrl !== null && !earlier.databaseUrl) {
      throw configError(
        'REDIS_URL needs DATABASE_URL: several instances share one PostgreSQL; the embedded database belongs to one process',
      );
    }
    return values;
  },
);
