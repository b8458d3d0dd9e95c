/**
 * Cars and driving sessions: the members' list and status, connecting with a code, the admin's
 * car actions, and SIM_CARS (the quick start's simulated cars and their agent processes).
 */
import type { ChildProcess } from 'node:child_process';
import { defineModule } from '../../module.js';
import { SharedTelemetry } from '../../scale-out/shared-telemetry.js';
import { adminCarRoutes } from './admin-cars.routes.js';
import { AdminCarsService } from './admin-cars.service.js';
import { carRoutes } from './cars.routes.js';
import { CarsService } from './cars.service.js';
import {
  DrivingSessions,
  WRONG_CODES_PER_MEMBER_PER_HOUR,
  WRONG_CODES_WINDOW_MS,
} from './driving-sessions.js';
import { provisionSimCars, type SimCar, SimCarSupervisor, simCarsBanner } from './sim-cars.js';

declare module '../../module.js' {
  interface Services {
    /** The members' car list and status, and the car socket's secret check. */
    cars: CarsService;
    /** Driving sessions: connecting, control tokens, timers and ends, the races' hold on cars. */
    drivingSessions: DrivingSessions;
    /** The admin's car actions (audited). */
    adminCars: AdminCarsService;
    /**
     * SIM_CARS: provisions the simulated cars, prints their codes and starts their agents against
     * this server's listening address. Call after `listen` and `migrated()`.
     */
    startSimCars(print?: (text: string) => void): Promise<SimCar[]>;
    /** The running agent process of a simulated car (tests). */
    simCarChild(carId: number): ChildProcess | undefined;
    /** The simulated cars' agent processes. */
    simCars: SimCarSupervisor;
  }
}

/** Where this server listens, as its own simulated cars dial it. */
function ownUrl(address: ReturnType<import('node:net').Server['address']>): string {
  if (address === null || typeof address === 'string')
    throw new Error('startSimCars needs a listening server');
  const host = ['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

export const carsModule = defineModule({
  name: 'cars',
  needs: ['carRelay', 'carDirectory', 'video', 'settings'],
  provides: ['cars', 'drivingSessions', 'adminCars', 'startSimCars', 'simCarChild', 'simCars'],
  services: ({ app, config, db, bus, clock, log, redis, services, options, limitStores }) => {
    // Several instances: the cars held here record their telemetry for the admin on any instance.
    const telemetry = redis
      ? new SharedTelemetry({ redis: redis.commands, namespace: config.redisNamespace, log })
      : null;
    if (telemetry) services.carRelay.onCarTelemetry((carId, received) => telemetry.record(carId, received));
    const presence = services.carRelay;
    const cars = new CarsService({
      db,
      clock,
      directory: services.carDirectory,
      presence,
      video: services.video,
    });
    const drivingSessions = new DrivingSessions({
      db,
      bus,
      clock,
      log,
      cars,
      presence,
      settings: services.settings,
      codeBudget: limitStores.window<number>(
        'control-codes',
        WRONG_CODES_PER_MEMBER_PER_HOUR,
        WRONG_CODES_WINDOW_MS,
      ),
    });
    const adminCars = new AdminCarsService({
      db,
      bus,
      clock,
      presence,
      telemetryElsewhere: telemetry ?? undefined,
      video: services.video,
      sessions: drivingSessions,
      controlCodeTtlMinutes: config.controlCodeTtlMinutes,
    });
    const simCars = new SimCarSupervisor({ log, agent: options.simCarAgent });
    return {
      cars,
      drivingSessions,
      adminCars,
      simCars,
      startSimCars: async (print = (text) => process.stdout.write(text)) => {
        const serverUrl = ownUrl(app.server.address());
        const provisioned = await provisionSimCars(adminCars, config.dataDir, config.simCars);
        print(simCarsBanner(provisioned, config.publicUrl, config.controlCodeTtlMinutes));
        simCars.start(provisioned, serverUrl);
        return provisioned;
      },
      simCarChild: (carId) => simCars.child(carId),
    };
  },
  routes: (services) => [
    { plugin: carRoutes(services) },
    { plugin: adminCarRoutes(services), prefix: '/admin' },
  ],
  // A ban or a deletion ends the member's car sessions once, where it happened.
  onOrigin: ({ drivingSessions }) => ({
    'user.sessions-revoked': (event) => drivingSessions.onSessionsRevoked(event),
  }),
  // After the migrations: end what expired while the server was down, time the live sessions.
  start: ({ drivingSessions }) => drivingSessions.start(),
  stop: async ({ drivingSessions, simCars }) => {
    drivingSessions.stop();
    await simCars.stop();
  },
});
