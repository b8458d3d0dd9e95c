/** Driving: the relay between controllers and car agents, and its socket (/rcsocket). */
import { defineModule } from '../../module.js';
import { RedisRelayBridge } from '../../scale-out/redis-relay-bridge.js';
import { CarRelay } from './car-relay.js';
import { controlSockets } from './control.sockets.js';
import type { ControllerLink } from './controller-link.js';

declare module '../../module.js' {
  interface Services {
    /** The connected cars and controllers (/rcsocket). */
    carRelay: CarRelay;
  }
}

export const controlModule = defineModule({
  name: 'control',
  needs: ['memberSockets'],
  // The cars service reads the relay's presence: the relay reads the cars' rows only later.
  uses: ['cars', 'drivingSessions'],
  provides: ['carRelay'],
  services: ({ bus, log, redis, services }) => ({
    carRelay: new CarRelay({
      events: bus,
      log,
      // A car's `welcome` reads the row: it may connect before the car directory is loaded.
      carConfig: (carId) => services.cars.liveConfig(carId),
      controllerSockets: services.memberSockets.kind<ControllerLink>('controller'),
      // Several instances: a driver here may drive a car whose agent is on another one.
      bridge: redis ? new RedisRelayBridge({ channels: redis, log }) : undefined,
    }),
  }),
  sockets: (services, { clock, config, limitStores }) =>
    controlSockets({ ...services, clock, config, limitStores }),
  on: ({ carRelay }) => carRelay.handlers(),
  // Cars to neutral and sockets closed before the server stops accepting.
  stop: ({ carRelay }) => carRelay.close(),
});
