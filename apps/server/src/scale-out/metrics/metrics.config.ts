/**
 * GET /metrics (docs/operations.md "Monitoring and alerts"): Prometheus's text on a port of its
 * own, never on the public one. Loopback by default; any other address needs a token, so the
 * server's inner numbers are never open to the network by a single forgotten setting.
 */
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import { integerBetween } from '../../config/schemas.js';

/** The addresses only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

export const metricsConfig = defineSection(
  {
    metricsPort: setting({
      env: 'METRICS_PORT',
      schema: integerBetween(0, 65535),
      default: null,
      doc: 'Port of `GET /metrics` (Prometheus text format), e.g. `9464`; a server of its own, apart from `PORT`. `0`: any free port (logged). Unset: no metrics server.',
    }),
    metricsHost: setting({
      env: 'METRICS_HOST',
      schema: z.string().regex(/^[A-Za-z0-9.:[\]-]{1,255}$/, 'must be a host name or IP address'),
      default: '127.0.0.1',
      doc: 'Address the metrics server listens on. Loopback by default; any other address needs `METRICS_TOKEN`.',
    }),
    metricsToken: setting({
      env: 'METRICS_TOKEN',
      schema: z.string().min(16, 'must be at least 16 characters long'),
      default: null,
      doc: 'When set, `GET /metrics` needs `Authorization: Bearer <token>` (Prometheus: `authorization: {credentials: …}`). Required when `METRICS_HOST` is not loopback.',
      secret: true,
    }),
  },
  (values) => {
    if (values.metricsToken === null && !isLoopbackHost(values.metricsHost)) {
      throw configError(
        `METRICS_HOST ${values.metricsHost} is not loopback: set METRICS_TOKEN, or the server's metrics would be open to the network`,
      );
    }
    return values;
  },
);
