/**
 * Builds the Fastify application: plugins, the one error handler, the API modules under /api and
 * the web app. Owns the start-up sequence of the database: it is opened on its first query and
 * migrated once the server listens (or `migrated()` is called), so a server whose port is taken
 * writes nothing, and /api/ready can report "not ready" meanwhile.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import { ERROR_KEYS } from '@telerace/protocol';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { EventBus } from './events.js';
import { authenticatePlugin } from './http/authenticate.js';
import { HttpError, handleError, notFoundError } from './http/errors.js';
import { type LogStream, loggerOptions } from './http/logging.js';
import { registerSecurityHeaders } from './http/security.js';
import { registerSpa } from './http/spa.js';
import { accountRoutes } from './modules/account/account.routes.js';
import { adminUserRoutes } from './modules/admin/admin-users.routes.js';
import { accessTokenKeys } from './modules/auth/access-token.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { LoginCodes } from './modules/auth/login-codes.js';
import { seedAccounts } from './modules/auth/seed.js';
import { adminCarRoutes } from './modules/cars/admin-cars.routes.js';
import { findLiveCar, findLiveSessionOfCar } from './modules/cars/cars.repo.js';
import { carRoutes } from './modules/cars/cars.routes.js';
import { CarsService } from './modules/cars/cars.service.js';
import {
  type AgentCommand,
  provisionSimCars,
  type SimCar,
  SimCarSupervisor,
  simCarsBanner,
} from './modules/cars/sim-cars.js';
import { CarRelay } from './modules/control/car-relay.js';
import { controlRoutes } from './modules/control/control.routes.js';
import { SocketAdmission } from './modules/control/socket-admission.js';
import { EventSockets, eventRoutes } from './modules/events/events.gateway.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { publicConfigRoutes } from './modules/public-config/public-config.routes.js';
import { UserCache } from './modules/users/user-cache.js';
import { fillUsernameSkeletons } from './modules/users/usernames.js';
import { JANUS_MAX_MESSAGE_BYTES, janusProxyRoutes } from './modules/video/janus-proxy.js';
import { videoRoutes } from './modules/video/video.routes.js';
import { VideoService } from './modules/video/video.service.js';
import { MIGRATIONS_DIR, SERVER_VERSION } from './paths.js';

export interface BuildAppOptions {
  /** Log destination; defaults to stdout. Tests pass a stream to read the log. */
  logStream?: LogStream;
  /** An already open database to use instead of the configured one (tests: in-memory PGlite). The app closes it. */
  database?: Database;
  /** Migrations start only once this settles (tests observe the "migrating" state with it). */
  migrationGate?: Promise<unknown>;
  /** Requests per IP and window on /api. Default: the configured number per minute. */
  rateLimit?: { max: number; timeWindowMs: number };
  /** More routes under /api, registered after the built-in ones (tests add probes with it). */
  apiPlugins?: FastifyPluginAsync[];
  /** How simulated car agents are started (default: the real agent of apps/car). */
  simCarAgent?: AgentCommand;
}

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    events: EventBus;
    config: Config;
    /** Cars and driving sessions (domain logic). */
    cars: CarsService;
    /** The connected cars and controllers (/rcsocket). */
    carRelay: CarRelay;
    /** Members' rows for the member check, in memory and dropped by `user.changed` (user-cache.ts). */
    userCache: UserCache;
    /** One-time sign-in codes bound to the browser that started the flow (social sign-in). */
    loginCodes: LoginCodes;
    /** The members' event sockets (/api/race-ws). */
    eventSockets: EventSockets;
    /** Live video: Janus and the cars' mountpoints. */
    video: VideoService;
    /** Resolves once the video service found (or started) its Janus, or gave up. */
    videoStarted(): Promise<void>;
    /**
     * SIM_CARS: provisions the simulated cars, prints their codes and starts their agents against
     * this server's listening address. Call after `listen` and `migrated()`.
     */
    startSimCars(print?: (text: string) => void): Promise<SimCar[]>;
    /** The running agent process of a simulated car (tests). */
    simCarChild(carId: number): ChildProcess | undefined;
    /**
     * Starts the start-up migrations and seeding if `listen` has not already, and resolves once
     * they are done; rejects if they failed.
     */
    migrated(): Promise<void>;
  }
}

/**
 * Fastify's trustProxy for TRUST_PROXY: a hop count becomes "trust the nearest n hops" (what
 * Fastify does with a number at run time, though its types only take a function for it).
 */
function trustProxySetting(
  trust: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

export async function buildApp(config: Config, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, options.logStream),
    trustProxy: trustProxySetting(config.trustProxy),
    frameworkErrors: handleError,
  });

  // Beyond this the server refuses new connections instead of running out of file descriptors
  // (then /api/health would stop answering for everyone).
  app.server.maxConnections = config.maxConnections;

  const database =
    options.database ??
    openDatabase(
      config.databaseUrl
        ? {
            kind: 'postgres',
            url: config.databaseUrl,
            onPoolError: (error) => app.log.error({ err: error }, 'database connection lost'),
          }
        : { kind: 'pglite', dataDir: join(config.dataDir, 'db') },
    );
  app.decorate('database', database);
  app.decorate('events', new EventBus());
  app.decorate('config', config);
  const userCache = new UserCache(database.db);
  userCache.subscribe(app.events);
  app.decorate('userCache', userCache);
  const relay: CarRelay = new CarRelay(app.events, app.log, {
    carConfig: (carId) => cars.carConfig(carId),
    saveConfig: async (user, carId, carConfig) => {
      await cars.saveConfig({ id: user.id, username: user.username }, carId, carConfig);
    },
  });
  const video = new VideoService({
    config,
    log: app.log,
    cars: relay,
    streamIdOf: async (carId) => (await findLiveCar(database.db, carId))?.streamId ?? null,
    isDriven: async (carId) => (await findLiveSessionOfCar(database.db, carId)) !== undefined,
  });
  const cars: CarsService = new CarsService(
    database.db,
    app.events,
    relay,
    app.log,
    video,
    config.controlCodeTtlMinutes,
  );
  app.decorate('cars', cars);
  app.decorate(
    'loginCodes',
    new LoginCodes(database.db, { secure: config.publicUrl.startsWith('https://') }),
  );
  app.decorate('video', video);
  video.track(app.events.on('car.online', ({ carId }) => void video.carOnline(carId)));
  video.track(app.events.on('car.deleted', ({ carId }) => void video.carDeleted(carId)));
  video.track(app.events.on('car.offline', ({ carId }) => video.carOffline(carId)));
  video.track(app.events.on('car.session-started', ({ carId }) => void video.sessionStarted(carId)));
  video.track(app.events.on('car.session-ended', ({ carId }) => void video.sessionEnded(carId)));
  video.track(
    app.events.on('user.role-changed', ({ isAdmin }) => {
      if (!isAdmin) void video.adminDemoted();
    }),
  );
  let videoStart: Promise<void> | undefined;
  app.decorate('videoStarted', async () => {
    await app.ready();
    return videoStart;
  });
  app.decorate('carRelay', relay);
  app.decorate('eventSockets', new EventSockets());
  app.decorate('socketAdmission', new SocketAdmission(config.socketsPerIp));
  const simCars = new SimCarSupervisor(app.log, options.simCarAgent);
  app.decorate(
    'startSimCars',
    async (print: (text: string) => void = (text) => process.stdout.write(text)) => {
      const address = app.server.address();
      if (address === null || typeof address === 'string')
        throw new Error('startSimCars needs a listening server');
      const host = ['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.address;
      const serverUrl = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      const provisioned = await provisionSimCars(
        database.db,
        app.events,
        config.dataDir,
        config.simCars,
        config.controlCodeTtlMinutes,
      );
      print(simCarsBanner(provisioned, config.publicUrl, config.controlCodeTtlMinutes));
      simCars.start(provisioned, serverUrl);
      return provisioned;
    },
  );
  app.decorate('simCarChild', (carId: number) => simCars.child(carId));

  let migrated = false;
  let migrationRun: Promise<void> | undefined;
  const startMigrations = (): Promise<void> => {
    migrationRun ??= (async () => {
      await options.migrationGate;
      const startedAt = Date.now();
      await database.migrate(MIGRATIONS_DIR);
      app.log.info({ db: database.kind, ms: Date.now() - startedAt }, 'database migrations applied');
      // Ready only once the configured admin exists: scripts log in as soon as /api/ready says so.
      // Before seeding: the seeded names are checked against the old rows' look-alike forms.
      await fillUsernameSkeletons(database.db, app.log);
      await seedAccounts(database.db, config, app.log);
      // Seeding and the name fill write users rows without events: nothing read before them stays.
      userCache.clear();
      await cars.start();
      migrated = true;
    })().catch((error: unknown) => {
      app.log.error({ err: error }, 'database migrations failed');
      throw error;
    });
    return migrationRun;
  };
  app.decorate('migrated', async () => {
    await app.ready();
    return startMigrations();
  });
  app.addHook('onReady', async () => {
    // Not awaited: the site serves while Janus starts; cars that connect meanwhile get their
    // video target once it answers.
    videoStart = video.start();
  });
  app.addHook('onListen', async () => {
    // Only once the port is ours (onReady runs before `listen` binds it): a server that cannot
    // listen must leave the database untouched. Not awaited: /api/ready says "not ready" meanwhile.
    startMigrations().catch(() => undefined); // logged by startMigrations
  });
  app.addHook('preClose', async () => {
    // Cars to neutral and sockets closed before the server stops accepting.
    cars.stop();
    relay.close();
    await simCars.stop();
    await videoStart;
    await video.stop();
  });
  app.addHook('onClose', async () => {
    // Closing the database under a running migration would leave it half-applied.
    await migrationRun?.catch(() => undefined);
    await database.close();
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);

  await registerSecurityHeaders(app, config);

  // The OpenAPI description is generated from the same zod schemas the routes validate with.
  await app.register(swagger, {
    openapi: { info: { title: 'Telerace API', version: SERVER_VERSION } },
    transform: jsonSchemaTransform,
  });

  // Upgraded requests are hijacked before onSend, so compression never touches a WebSocket
  // (src/app.test.ts keeps it that way).
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    // Brotli's default (11) costs far too much CPU for on-the-fly compression.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
  });

  await app.register(cookie);

  // Both sockets live outside the /api rate limiter's scope: an upgrade is not a REST call.
  await app.register(websocket, {
    // The video signalling carries SDP; the control and event sockets hold their messages to
    // CONTROL_LIMITS.maxPayloadBytes themselves.
    options: { maxPayload: JANUS_MAX_MESSAGE_BYTES, perMessageDeflate: false },
  });
  await app.register(controlRoutes);
  await app.register(janusProxyRoutes, { video });
  await app.register(eventRoutes);

  const limits = options.rateLimit ?? { max: config.apiRateLimitPerMinute, timeWindowMs: 60_000 };
  await app.register(
    async (api) => {
      // Inside the /api scope only: the web app's static files are not rate-limited.
      await api.register(rateLimit, {
        max: limits.max,
        timeWindow: limits.timeWindowMs,
        errorResponseBuilder: (_request, context) =>
          new HttpError(
            context.statusCode,
            `Too many requests, retry in ${context.after}`,
            ERROR_KEYS.tooManyRequests,
          ),
      });
      await api.register(authenticatePlugin, {
        users: userCache,
        keys: accessTokenKeys(config.jwtSecret, config.accessTokenTtlSeconds),
      });
      await api.register(healthRoutes, { database, version: SERVER_VERSION, isMigrated: () => migrated });
      await api.register(publicConfigRoutes, { config });
      await api.register(authRoutes);
      await api.register(accountRoutes);
      await api.register(adminUserRoutes, { prefix: '/admin' });
      await api.register(carRoutes);
      await api.register(adminCarRoutes, { prefix: '/admin' });
      await api.register(videoRoutes);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      for (const plugin of options.apiPlugins ?? []) await api.register(plugin);
      // Any other /api path, whatever the method: JSON 404 (never the web app's HTML).
      api.all('/*', async () => {
        throw notFoundError();
      });
    },
    { prefix: '/api' },
  );

  await registerSpa(app, config.webDistDir);

  return app;
}
