/**
 * The composition root: builds the Fastify application (plugins, the one error handler, the API
 * modules under /api, the sockets and the web app) and wires the modules, in the order their
 * declarations give (module.ts `moduleOrder`), each handed the services it declared. Nothing else
 * wires or looks up services. Owns the start-up sequence of the database: it is opened on its
 * first query and migrated once the server listens (or `migrated()` is called), so a server whose
 * port is taken writes nothing, and /api/ready can report "not ready" meanwhile.
 */
import { join } from 'node:path';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import { ERROR_KEYS, type ErrorBody } from '@telerace/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { BuildAppOptions } from './app-options.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { secondsToWait } from './domain-error.js';
import { EventBus } from './events.js';
import { API_DESCRIPTION, operationTransform, registerApiDocs, SECURITY_SCHEMES } from './http/api-docs.js';
import { authenticatePlugin } from './http/authenticate.js';
import { HttpError, handleError, notFoundError } from './http/errors.js';
import {
  lazyRequestLogger,
  loggerOptions,
  registerSlowRequestLog,
  requestLogController,
} from './http/logging.js';
import { isRendererRequest } from './http/page-render.js';
import { registerRequestTurns } from './http/request-turns.js';
import { registerSecurityHeaders } from './http/security.js';
import { registerSpa } from './http/spa.js';
import { validatorCompiler } from './http/validator.js';
import { declaredServices, type ModuleContext, moduleOrder, type Services } from './module.js';
import { seedAccounts } from './modules/auth/seed.js';
import { MODULES } from './modules/index.js';
import { fillUsernameSkeletons } from './modules/users/usernames.js';
import { JANUS_MAX_MESSAGE_BYTES } from './modules/video/janus-proxy.js';
import { MIGRATIONS_DIR, pageRendererFile, SERVER_VERSION } from './paths.js';
import { LimitStores } from './scale-out/limit-stores.js';
import { RedisChannels } from './scale-out/redis-channels.js';
import { RedisTransport } from './scale-out/redis-transport.js';
import { sharedLimitsStore } from './scale-out/shared-limits.js';
import { registerSockets } from './sockets/define-socket.js';
import { SocketAdmission } from './sockets/socket-admission.js';
import { SocketMeter } from './sockets/socket-meter.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Starts the start-up migrations and seeding if `listen` has not already, and resolves once
     * they are done; rejects if they failed.
     */
    migrated(): Promise<void>;
  }
}

/**
 * What the root built: the services by name and the shared pieces. For main.ts and the tests'
 * helper (test/app.ts) only; modules are handed what they declare.
 */
export interface BuiltApp {
  services: Services;
  database: Database;
  events: EventBus;
  config: Config;
  clock: Clock;
  limitStores: LimitStores;
  socketAdmission: SocketAdmission;
  socketMeter: SocketMeter;
  keepaliveClock: Clock;
}

const builtApps = new WeakMap<FastifyInstance, BuiltApp>();

/** What buildApp built for this app. */
export function builtApp(app: FastifyInstance): BuiltApp {
  const built = builtApps.get(app);
  if (!built) throw new Error('not an app made by buildApp');
  return built;
}

/** What a request that waits for the start-up gets meanwhile (as /api/ready answers then). */
const NOT_READY_BODY: ErrorBody = { error: 'Not ready', errorKey: ERROR_KEYS.notReady };

/** What waits for the start-up: the API and the sockets, not its probes nor the web app's files. */
function waitsForStartUp(url: string): boolean {
  const path = url.split('?', 1)[0] ?? url;
  if (path === '/api/health' || path === '/api/ready') return false;
  return path === '/api' || path.startsWith('/api/') || path === '/rcsocket' || path === '/janus';
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
    logController: requestLogController(config.logLevel),
    // A request's logger is made when it first logs: most never do (http/logging.ts).
    childLoggerFactory: lazyRequestLogger,
    trustProxy: trustProxySetting(config.trustProxy),
    frameworkErrors: handleError,
  });

  // Beyond this the server refuses new connections instead of running out of file descriptors
  // (then /api/health would stop answering for everyone).
  app.server.maxConnections = config.maxConnections;

  // First of all hooks: each request's work in its own turn of the event loop, so a driven car's
  // commands never wait behind a whole batch of web requests (http/request-turns.ts).
  registerRequestTurns(app);

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
  // Several instances (REDIS_URL): facts and the relay between instances go through Redis.
  const redis = config.redisUrl
    ? new RedisChannels({ url: config.redisUrl, namespace: config.redisNamespace, log: app.log })
    : null;
  // Every service by name, filled module by module (the modules see them through `declaredServices`).
  const built: Record<string, unknown> = {};
  const services = built as unknown as Services;
  // Strict under test: an event that does not match its schema fails the test that emitted it.
  const bus = new EventBus({
    log: app.log,
    strict: process.env.NODE_ENV === 'test',
    transport: redis ? new RedisTransport({ channels: redis, log: app.log }) : undefined,
    // Read when a fact arrives, long after the leadership module built its service.
    leads: () => services.leadership.leading,
  });
  const clock = options.clock ?? systemClock;
  const socketAdmission = new SocketAdmission(config.socketsPerIp);
  // The abuse limits' counts: shared by every instance with REDIS_URL, in memory without.
  const limitStores = new LimitStores({
    redis,
    namespace: config.redisNamespace,
    log: app.log,
    sockets: socketAdmission,
  });
  const socketMeter = new SocketMeter();
  const keepaliveClock = options.keepaliveClock ?? systemClock;
  builtApps.set(app, {
    services,
    database,
    events: bus,
    config,
    clock,
    limitStores,
    socketAdmission,
    socketMeter,
    keepaliveClock,
  });

  // The modules, in the order their needs give (a cycle throws here, naming it): each one's
  // services built with what it declared, then every handler subscribed.
  const modules = moduleOrder(MODULES);
  let migrated = false;
  const shared = {
    config,
    database,
    db: database.db,
    bus,
    clock,
    log: app.log,
    app,
    isMigrated: () => migrated,
    options,
    redis,
    limitStores,
    socketMeter,
  };
  let building = true;
  const declared = new Map(
    modules.map((module) => [module, declaredServices(module, built, () => building)]),
  );
  const servicesOf = (module: (typeof modules)[number]) => declared.get(module) as Services;
  const contextOf = (module: (typeof modules)[number]): ModuleContext => ({
    ...shared,
    services: servicesOf(module),
  });
  for (const module of modules) {
    const made: Record<string, unknown> = module.services?.(contextOf(module)) ?? {};
    const provided = [...(module.provides ?? [])].sort().join(', ');
    if (Object.keys(made).sort().join(', ') !== provided)
      throw new Error(
        `module ${module.name} built {${Object.keys(made).join(', ')}} but provides [${provided}]`,
      );
    Object.assign(built, made);
  }
  building = false;
  const unsubscribe = modules.flatMap((module) => [
    bus.onAll(module.on?.(servicesOf(module)) ?? {}, 'every'),
    bus.onAll(module.onOrigin?.(servicesOf(module)) ?? {}, 'origin'),
    bus.onAll(module.onLeader?.(servicesOf(module)) ?? {}, 'leader'),
  ]);

  let migrationRun: Promise<void> | undefined;
  const startMigrations = (): Promise<void> => {
    migrationRun ??= (async () => {
      await options.migrationGate;
      // Ready once the other instances' facts are heard (or Redis is known unreachable: logged).
      await redis?.ready(5_000);
      const startedAt = Date.now();
      await database.migrate(MIGRATIONS_DIR);
      app.log.info({ db: database.kind, ms: Date.now() - startedAt }, 'database migrations applied');
      // Ready only once the configured admin exists: scripts log in as soon as /api/ready says so.
      // Before seeding: the seeded names are checked against the old rows' look-alike forms.
      await fillUsernameSkeletons(database.db, app.log);
      await seedAccounts(database.db, config, app.log);
      for (const module of modules) await module.start?.(servicesOf(module), contextOf(module));
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
    for (const module of modules) module.ready?.(servicesOf(module), contextOf(module));
  });
  app.addHook('onListen', async () => {
    // Only once the port is ours (onReady runs before `listen` binds it): a server that cannot
    // listen must leave the database untouched. Not awaited: /api/ready says "not ready" meanwhile.
    startMigrations().catch(() => undefined); // logged by startMigrations
  });
  app.addHook('preClose', async () => {
    // Before the server stops accepting: handlers off, then every module stops — all invoked at
    // once, newest first, so the relay's synchronous close (cars to neutral) never waits behind
    // a slow stop such as Janus's.
    for (const off of unsubscribe) off();
    const stops = [...modules]
      .reverse()
      .map(async (module) => module.stop?.(servicesOf(module), contextOf(module)));
    for (const result of await Promise.allSettled(stops)) {
      if (result.status === 'rejected') app.log.error({ err: result.reason }, 'a module failed to stop');
    }
  });
  app.addHook('onClose', async () => {
    // Closing the database under a running migration would leave it half-applied.
    await migrationRun?.catch(() => undefined);
    await limitStores.close();
    await redis?.close();
    await database.close();
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  registerSlowRequestLog(app);

  await registerSecurityHeaders(app, config);

  // The OpenAPI description is generated from the same zod schemas the routes validate with.
  await app.register(swagger, {
    openapi: {
      info: { title: 'Telerace API', version: SERVER_VERSION, description: API_DESCRIPTION },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: operationTransform,
  });
  // Its reference page at /api/docs (http/api-docs.ts).
  await registerApiDocs(app, config);

  // Upgraded requests are hijacked before onSend, so compression never touches a WebSocket
  // (src/app.test.ts keeps it that way).
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    // Brotli's default (11) costs far too much CPU for on-the-fly compression.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    // No client sends compressed bodies (they are small JSON): no per-request decompression hook.
    globalDecompression: false,
  });

  await app.register(cookie);

  // Both sockets live outside the /api rate limiter's scope: an upgrade is not a REST call.
  await app.register(websocket, {
    // The video signalling carries SDP; the control and event sockets hold their messages to
    // CONTROL_LIMITS.maxPayloadBytes themselves.
    options: { maxPayload: JANUS_MAX_MESSAGE_BYTES, perMessageDeflate: false },
    // A client's broken frame (past maxPayload, text that is not UTF-8: ws's WS_ERR_* codes) is
    // the client's fault, and ws is already closing the socket with its code (1009, 1007) after
    // what was queued for it; each socket's own listener logs it at warn. The plugin's default
    // logged it again at error, with a stack, and terminated the socket: the queued answers and
    // the close code were lost (the client saw 1006). Found by sockets/socket-fuzz.test.ts.
    errorHandler: (error, socket, request) => {
      if (String((error as { code?: unknown }).code).startsWith('WS_ERR_')) return;
      request.log.error(error);
      socket.terminate();
    },
  });
  // While it starts, only the probes answer: a request or a socket that reaches an instance still
  // starting (a restart behind nginx, which tries another instance on a 503) would find its modules
  // not started — a follower without its copy of the race, a relay without its cars. After the
  // websocket plugin's own hook, which marks an upgrade so that its socket is closed once refused.
  app.addHook('onRequest', async (request, reply) => {
    if (!migrated && waitsForStartUp(request.url))
      return reply.code(503).header('retry-after', '1').send(NOT_READY_BODY);
  });
  // Every module's sockets, through the socket kit, which is given what it checks with.
  registerSockets(
    app,
    modules.flatMap((module) => module.sockets?.(servicesOf(module), contextOf(module)) ?? []),
    {
      publicUrl: config.publicUrl,
      authenticator: services.authenticator,
      places: socketAdmission,
      memberSockets: services.memberSockets,
      meter: socketMeter,
      keepaliveClock,
    },
  );

  const limits = options.rateLimit ?? { max: config.apiRateLimitPerMinute, timeWindowMs: 60_000 };
  // Several instances: one budget per client across all of them, in Redis (scale-out/shared-limits.ts).
  const sharedLimits = sharedLimitsStore(config, app.log);
  app.addHook('onClose', async () => sharedLimits.close());
  await app.register(
    async (api) => {
      // Inside the /api scope only: the web app's static files are not rate-limited.
      await api.register(rateLimit, {
        max: limits.max,
        timeWindow: limits.timeWindowMs,
        // The budget's headers only on the 429 (with Retry-After), not on every answer: the web
        // app never reads them, and each visitor's polls paid for three more headers each time.
        addHeadersOnExceeding: {
          'x-ratelimit-limit': false,
          'x-ratelimit-remaining': false,
          'x-ratelimit-reset': false,
        },
        // Retry-After comes from the refusal, in the error handler, like every other one.
        addHeaders: { 'retry-after': false },
        ...sharedLimits.rateLimitOptions,
        // The page renderer's own reads (page-render.ts bounds them): no visitor's budget.
        allowList: (request) => isRendererRequest(request),
        errorResponseBuilder: (_request, context) =>
          new HttpError(
            context.statusCode,
            `Too many requests, retry in ${context.after}`,
            ERROR_KEYS.tooManyRequests,
            secondsToWait(context.ttl),
          ),
      });
      await api.register(authenticatePlugin, { authenticator: services.authenticator });
      for (const module of modules) {
        for (const { plugin, prefix } of module.routes?.(servicesOf(module), contextOf(module)) ?? []) {
          await api.register(plugin, { prefix });
        }
      }
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      for (const plugin of options.apiPlugins ?? []) await api.register(plugin);
      // Any other /api path, whatever the method: JSON 404 (never the web app's HTML). Not an
      // operation of the API reference.
      api.all('/*', { schema: { hide: true } }, async () => {
        throw notFoundError();
      });
    },
    { prefix: '/api' },
  );

  await registerSpa(app, {
    webDistDir: config.webDistDir,
    rendererFile: pageRendererFile(config.webDistDir),
    clock,
  });

  return app;
}
