/**
 * GET /metrics and the operators' GET /health on METRICS_PORT (scale-out/metrics/): built from the
 * services it needs and listening once the server has started; nothing at all without
 * METRICS_PORT.
 */
import { defineModule } from '../../module.js';
import { SERVER_VERSION } from '../../paths.js';
import { metricsRegistry } from './metrics-registry.js';
import { MetricsServer } from './metrics-server.js';

declare module '../../module.js' {
  interface Services {
    /** The metrics server; null without METRICS_PORT. */
    metricsServer: MetricsServer | null;
  }
}

export const metricsModule = defineModule({
  name: 'metrics',
  needs: ['carRelay', 'leadership', 'race', 'raffles', 'video', 'integrations', 'health'],
  provides: ['metricsServer'],
  services: ({ config, database, services, socketMeter, log }) => {
    if (config.metricsPort === null) return { metricsServer: null };
    const registry = metricsRegistry({
      version: SERVER_VERSION,
      database,
      sockets: socketMeter,
      relay: services.carRelay,
      leadership: services.leadership,
      race: services.race,
      raffles: services.raffles,
      video: services.video,
      integrations: services.integrations,
      log,
    });
    return {
      metricsServer: new MetricsServer({
        registry,
        health: services.health,
        host: config.metricsHost,
        port: config.metricsPort,
        token: config.metricsToken,
        log,
      }),
    };
  },
  // Once the server is started: a metrics port already taken fails the start-up with its error.
  start: async ({ metricsServer }) => metricsServer?.start(),
  stop: async ({ metricsServer }) => metricsServer?.stop(),
});
