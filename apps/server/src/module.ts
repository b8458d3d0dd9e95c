/**
 * The module contract (docs/architecture.md "Modules"). Each feature folder exports one
 * definition: the services it builds, its REST routes (under /api) and sockets, what it does
 * about domain events and where (every instance, or once: events.ts `HandlerPlace`), and its
 * start/stop. `app.ts` walks the list in order (modules/index.ts);
 * nothing else wires services together.
 *
 * Services are classes built once from the shared context ({db, bus, clock, log, config}) and the
 * services of the modules listed before; they are also decorated on the Fastify instance under
 * the same names, which is how routes and tests reach them (`app.cars`).
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { BuildAppOptions } from './app-options.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { EventBus, EventHandlers } from './events.js';
import type { RedisChannels } from './scale-out/redis-channels.js';

/**
 * Every module's services by name. Each module adds its own entries by declaration merging
 * (`declare module '../../module.js' { interface Services { cars: CarsService } }`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module.
export interface Services {}

export interface ModuleContext {
  config: Config;
  database: Database;
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The services built so far (of the modules listed before this one). */
  services: Services;
  /** The application (its address once listening, `ready()`), for the few services that need it. */
  app: FastifyInstance;
  /** Whether the start-up migrations and seeding are done. */
  isMigrated(): boolean;
  /** What the caller of buildApp asked for (tests: a fake agent command, …). */
  options: BuildAppOptions;
  /** This instance's Redis connections with REDIS_URL (scale-out, scale-out/redis-channels.ts); null in one process. */
  redis: RedisChannels | null;
}

// biome-ignore lint/suspicious/noExplicitAny: a plugin's own options type is checked where it is declared.
export type AnyPlugin = FastifyPluginAsync<any>;

export interface RouteRegistration {
  plugin: AnyPlugin;
  /** Below /api for routes, below / for sockets. */
  prefix?: string;
  options?: Record<string, unknown>;
}

export interface TeleraceModule {
  name: string;
  /** Builds the module's services once. */
  services?(context: ModuleContext): Partial<Services>;
  /** REST routes, registered under /api inside its rate limiter and member check. */
  routes?(context: ModuleContext): RouteRegistration[];
  /** Socket endpoints, registered at the root (an upgrade is not a REST call: no /api rate limit). */
  sockets?(context: ModuleContext): RouteRegistration[];
  /**
   * What the module does about each domain event on every instance: its read models, this
   * instance's own sockets and cars. Subscribed once the services are built, as the two below.
   */
  on?(services: Services): EventHandlers;
  /** Once, on the instance that published the fact: the writes a fact causes (rows, audit, mail). */
  onOrigin?(services: Services): EventHandlers;
  /** Once, on the leader: work on what only the leader runs (the race engine, the chat bots). */
  onLeader?(services: Services): EventHandlers;
  /** Once Fastify is ready (before listening): work that must not wait for the migrations. */
  ready?(services: Services, context: ModuleContext): void;
  /** After the migrations and seeding: load read models, resume timers. */
  start?(services: Services, context: ModuleContext): Promise<void>;
  /** Before the server closes, in reverse module order: cars to neutral, sockets closed. */
  stop?(services: Services, context: ModuleContext): Promise<void> | void;
}

/** Identity, for type checking a module's definition where it is written. */
export function defineModule(module: TeleraceModule): TeleraceModule {
  return module;
}

/**
 * The service registry: a lookup of a service no module has built yet fails loudly (a module
 * listed in the wrong order) instead of handing out undefined.
 */
export function serviceRegistry(): Services {
  const built: Record<string, unknown> = {};
  return new Proxy(built, {
    get(target, name) {
      if (typeof name === 'symbol' || name === 'then' || name === 'toJSON') return target[name as string];
      if (!(name in target)) throw new Error(`service "${name}" used before its module built it`);
      return target[name];
    },
  }) as unknown as Services;
}
