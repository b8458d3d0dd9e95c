/**
 * Scale-out (issue 15, docs/operations.md "Scaling"): with `REDIS_URL`, several server instances
 * share one PostgreSQL and pass their facts through Redis. Without it, everything stays in one
 * process, as the embedded quick start runs.
 */

import { z } from 'zod';
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
    redisNamespace: setting({
      env: 'REDIS_NAMESPACE',
      schema: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . or -'),
      default: 'telerace',
      doc: "The prefix of every Redis channel this site uses: two sites (or two test runs) on one Redis set different ones so they never hear each other's facts.",
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
