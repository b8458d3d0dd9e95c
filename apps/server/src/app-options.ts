/**
 * What the caller of `buildApp` may choose (tests: an in-memory database, a manual clock, a fake
 * car agent). Its own file: the module contract hands it to every module (`ModuleContext.options`)
 * while `app.ts` walks the modules, and neither may import the other.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from './clock.js';
import type { Database } from './db/client.js';
import type { LogStream } from './http/logging.js';
import type { AgentCommand } from './modules/cars/sim-cars.js';

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
  /** The time every domain timer reads (tests: a ManualClock). Default: the system clock. */
  clock?: Clock;
  /**
   * The time the sockets' keepalive counts (its own tests: a ManualClock). Default: the system
   * clock, not `clock`: a test that moves the domain clock minutes ahead in one step leaves its
   * clients no moment to answer a ping, and would have their sockets dropped as silent.
   */
  keepaliveClock?: Clock;
}
