/**
 * The module contract (docs/architecture.md "The composition root"). Each feature folder exports
 * one definition: the services it `needs` (built before it), those it only `uses` once the app
 * runs (no order), those it `provides`, how it builds them,
 * its REST routes (under /api) and sockets, what it does about domain events and where (every
 * instance, or once: events.ts `HandlerPlace`), and its start/stop. `app.ts` builds the modules
 * in the order their declarations give (`moduleOrder` below) and hands each one the services it
 * declared, nothing else: no module looks another up (through the Fastify instance or otherwise).
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { BuildAppOptions } from './app-options.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { EventBus, EventHandlers } from './events.js';
import type { LimitStores } from './scale-out/limit-stores.js';
import type { RedisChannels } from './scale-out/redis-channels.js';
import type { SocketRoute } from './sockets/define-socket.js';
import type { SocketMeter } from './sockets/socket-meter.js';

/**
 * Every module's services by name. Each module adds its own entries by declaration merging
 * (`declare module '../../module.js' { interface Services { cars: CarsService } }`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module.
export interface Services {}

export type ServiceName = keyof Services;

/** What every module is built with, besides the services it needs. */
export interface ModuleContext<N extends ServiceName = never, U extends ServiceName = never> {
  config: Config;
  database: Database;
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  /**
   * The services this module declared: its `needs`, built before it, and its `uses`, which exist
   * only once every module is built (call them from what runs later, never while building).
   */
  services: Pick<Services, N | U>;
  /** The application (its address once listening, `ready()`), for the few services that need it. */
  app: FastifyInstance;
  /** Whether the start-up migrations and seeding are done. */
  isMigrated(): boolean;
  /** What the caller of buildApp asked for (tests: a fake agent command, …). */
  options: BuildAppOptions;
  /** This instance's Redis connections with REDIS_URL (scale-out, scale-out/redis-channels.ts); null in one process. */
  redis: RedisChannels | null;
  /** The abuse limits' counts, shared across instances with REDIS_URL (scale-out/limit-stores.ts). */
  limitStores: LimitStores;
  /** The sockets' counts per kind (GET /metrics). */
  socketMeter: SocketMeter;
}

// biome-ignore lint/suspicious/noExplicitAny: a plugin's own options type is checked where it is declared.
export type AnyPlugin = FastifyPluginAsync<any>;

/** A REST plugin: it closes over the services it was given (`cars.routes.ts`). */
export interface RouteRegistration {
  plugin: AnyPlugin;
  /** Below /api. */
  prefix?: string;
}

/**
 * A module: `N` the services it needs built before it, `U` those it only uses once the app runs,
 * `P` those it provides. Every hook is handed exactly these (`Pick<Services, N | U | P>`), typed,
 * and checked at run time.
 */
export interface TeleraceModule<
  N extends ServiceName = ServiceName,
  P extends ServiceName = ServiceName,
  U extends ServiceName = ServiceName,
> {
  name: string;
  /**
   * The services of other modules this one calls while building its own, or in a `start` that
   * must run after theirs: they are built (and started) first; a cycle stops the start-up.
   */
  needs?: readonly N[];
  /**
   * The services of other modules this one calls only once the app runs (its routes, sockets and
   * event handlers, or a function its services call later): no order, so no cycle. The cars
   * service reads the relay's presence, and the relay reads the cars' rows when a car says hello.
   */
  uses?: readonly U[];
  /** The services `services` builds, by name: what other modules may need from this one. */
  provides?: readonly P[];
  /** Builds the module's services once. */
  services?(context: ModuleContext<N, U>): Pick<Services, P>;
  /** REST routes, registered under /api inside its rate limiter and member check. */
  routes?(services: Pick<Services, N | U | P>, context: ModuleContext<N, U>): RouteRegistration[];
  /** Socket declarations (sockets/define-socket.ts), registered at the root by the socket kit. */
  sockets?(services: Pick<Services, N | U | P>, context: ModuleContext<N, U>): SocketRoute[];
  /**
   * What the module does about each domain event on every instance: its read models, this
   * instance's own sockets and cars. Subscribed once the services are built, as the two below.
   */
  on?(services: Pick<Services, N | U | P>): EventHandlers;
  /** Once, on the instance that published the fact: the writes a fact causes (rows, audit, mail). */
  onOrigin?(services: Pick<Services, N | U | P>): EventHandlers;
  /** Once, on the leader: work on what only the leader runs (the race engine, the chat bots). */
  onLeader?(services: Pick<Services, N | U | P>): EventHandlers;
  /** Once Fastify is ready (before listening): work that must not wait for the migrations. */
  ready?(services: Pick<Services, N | U | P>, context: ModuleContext<N, U>): void;
  /** After the migrations and seeding: load read models, resume timers. */
  start?(services: Pick<Services, N | U | P>, context: ModuleContext<N, U>): Promise<void>;
  /** Before the server closes, in reverse module order: cars to neutral, sockets closed. */
  stop?(services: Pick<Services, N | U | P>, context: ModuleContext<N, U>): Promise<void> | void;
}

/** A module of any needs, as the list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: each definition is checked against its own needs where it is written.
export type AnyModule = TeleraceModule<any, any, any>;

/** Identity, for type checking a module's definition (its needs and provides) where it is written. */
export function defineModule<
  const N extends ServiceName = never,
  const P extends ServiceName = never,
  const U extends ServiceName = never,
>(module: TeleraceModule<N, P, U>): TeleraceModule<N, P, U> {
  return module;
}

/**
 * The order the modules are built, started and subscribed in: every module after the modules
 * providing what it needs. Among the modules free to go next, the one listed first goes (so the
 * list's order is kept wherever the needs allow). A need nobody provides, a service provided
 * twice or a cycle of needs throws, naming them.
 */
export function moduleOrder<M extends Pick<TeleraceModule, 'name' | 'needs' | 'uses' | 'provides'>>(
  modules: readonly M[],
): M[] {
  const providerOf = new Map<string, M>();
  for (const module of modules) {
    for (const name of module.provides ?? []) {
      const other = providerOf.get(name);
      if (other) throw new Error(`service "${name}" is provided by both ${other.name} and ${module.name}`);
      providerOf.set(name, module);
    }
  }
  const dependencies = new Map<M, Set<M>>();
  for (const module of modules) {
    const on = new Set<M>();
    for (const need of module.needs ?? []) {
      const provider = providerOf.get(need);
      if (!provider) throw new Error(`module ${module.name} needs "${need}", which no module provides`);
      if (provider !== module) on.add(provider);
    }
    dependencies.set(module, on);
    for (const use of module.uses ?? [])
      if (!providerOf.has(use))
        throw new Error(`module ${module.name} uses "${use}", which no module provides`);
  }
  const ordered: M[] = [];
  const placed = new Set<M>();
  while (ordered.length < modules.length) {
    const next = modules.find(
      (module) => !placed.has(module) && [...(dependencies.get(module) ?? [])].every((d) => placed.has(d)),
    );
    if (!next) throw new Error(`module cycle: ${describeCycle(modules, dependencies, placed, providerOf)}`);
    ordered.push(next);
    placed.add(next);
  }
  return ordered;
}

/** One cycle among the modules not yet placed, as `a (needs x) → b (needs y) → a`. */
function describeCycle<M extends Pick<TeleraceModule, 'name' | 'needs'>>(
  modules: readonly M[],
  dependencies: Map<M, Set<M>>,
  placed: Set<M>,
  providerOf: Map<string, M>,
): string {
  // Every module left waits on another one left: walking from any of them comes back to a cycle.
  const path: M[] = [];
  let current = modules.find((module) => !placed.has(module)) as M;
  while (!path.includes(current)) {
    path.push(current);
    current = [...(dependencies.get(current) ?? [])].find((d) => !placed.has(d)) as M;
  }
  const cycle = [...path.slice(path.indexOf(current)), current];
  return cycle
    .map((module, index) => {
      const next = cycle[index + 1];
      if (!next) return module.name;
      const need = (module.needs ?? []).find((name) => providerOf.get(name) === next);
      return `${module.name} (needs ${need})`;
    })
    .join(' → ');
}

/**
 * The services a module is handed: those it declared, and a clear error for any other name instead
 * of undefined (a need missing from the declaration). While the modules are being built
 * (`building()`) its `uses` are refused even if built already: they are for later calls.
 */
export function declaredServices(
  module: Pick<TeleraceModule, 'name' | 'needs' | 'uses' | 'provides'>,
  built: Record<string, unknown>,
  building: () => boolean,
): Services {
  const needs = new Set<string>([...(module.needs ?? []), ...(module.provides ?? [])]);
  const uses = new Set<string>(module.uses ?? []);
  const allowed = (name: string) => needs.has(name) || (uses.has(name) && !building());
  return new Proxy(built, {
    get(target, name) {
      if (typeof name === 'symbol' || name === 'then' || name === 'toJSON') return target[name as string];
      if (!allowed(name)) {
        if (uses.has(name))
          throw new Error(
            `module ${module.name} calls "${name}" while building: declare it in needs, not uses`,
          );
        throw new Error(`module ${module.name} uses "${name}" without declaring it (needs or uses)`);
      }
      if (!(name in target)) throw new Error(`service "${name}" used before its module built it`);
      return target[name];
    },
    // A spread (`{ ...services }`) copies what may be used now, and nothing undeclared.
    ownKeys: (target) => Reflect.ownKeys(target).filter((name) => typeof name === 'string' && allowed(name)),
  }) as unknown as Services;
}
