/**
 * Entry point. The order is what keeps DATA_DIR safe: private file modes before anything is
 * written, the configuration, the exclusive lock on DATA_DIR (embedded database only), listening,
 * and only then the database (migrations and seeding; /api/ready answers 503 until they are done).
 * Shuts down cleanly on SIGINT/SIGTERM and releases the lock when the process exits.
 */
// First: V8's settings apply before the rest allocates anything (v8-flags.ts).
import './v8-flags.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { DataDirInUseError, type DataDirLock, lockDataDir } from './db/data-dir-lock.js';
import { describeRepair, restrictModes } from './db/data-dir-modes.js';

/** A stuck request or socket must not keep a stopping process alive forever. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

// DATA_DIR holds password hashes and secrets: what this process (and its Janus and car agents)
// creates is for its own user only, whatever umask it was started with.
process.umask(0o077);

/** One line on stderr, no stack, and exit code 1: for mistakes an operator fixes. */
function refuseToStart(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    // The message names the variable to fix.
    if (error instanceof ConfigError) refuseToStart(error.message);
    throw error;
  }
}

/**
 * PGlite's folder belongs to one process. With DATABASE_URL there is no lock: several servers on
 * one PostgreSQL (a rolling restart) are allowed, and what they keep in DATA_DIR is safe to share
 * (the JWT secret is created exclusively; each server's own Janus needs its own DATA_DIR).
 */
function lockEmbeddedDatabase(config: Config): DataDirLock | null {
  if (config.databaseUrl !== null) return null;
  try {
    return lockDataDir(config.dataDir, 'server');
  } catch (error) {
    if (error instanceof DataDirInUseError) refuseToStart(error.message);
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    refuseToStart(`DATA_DIR ${config.dataDir} cannot be locked (${code})`);
  }
}

const config = readConfig();
const lock = lockEmbeddedDatabase(config);
// Synchronous, so it also runs on process.exit() (failed start-up, shutdown timeout). A SIGKILL
// leaves the file behind; the next start sees its process is gone and takes it over.
process.on('exit', () => lock?.release());
const modeRepair = restrictModes(config.dataDir);
// Loaded only now: the refusals above come before the whole server (fastify, PGlite) is loaded.
const { buildApp, builtApp } = await import('./app.js');
const app = await buildApp(config);

if (lock?.takenOver) {
  const { pid, reason } = lock.takenOver;
  app.log.warn(
    { dataDir: config.dataDir, stalePid: pid, reason },
    `took over the stale DATA_DIR lock of pid ${pid} (${reason}): that server did not stop cleanly`,
  );
}
if (modeRepair.changed.length > 0 || modeRepair.failed.length > 0) {
  app.log.warn(
    { dataDir: config.dataDir, changed: modeRepair.changed.length, failed: modeRepair.failed.length },
    `DATA_DIR was open to other users: ${describeRepair(modeRepair)}`,
  );
}

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  setTimeout(() => {
    app.log.error('shutdown timed out, exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS).unref();
  await app.close();
  process.exit(0);
}
// A promise nobody awaited failed (a background write while the database was away, say). Node's
// default ends the process with a stack on stderr, outside the log, and with it every driven car's
// relay: a forgotten catch must not take the site down. Logged as the error it is, and kept running.
process.on('unhandledRejection', (reason) => {
  app.log.error({ err: reason }, 'a promise failed and nothing handled it');
});
// A throw nothing caught leaves the process in an unknown state: said in the log, then it ends
// (cars go to neutral when their link closes; a supervisor starts the server again).
process.on('uncaughtException', (error) => {
  app.log.fatal({ err: error }, 'uncaught exception: the server stops');
  process.exit(1);
});
process.once('SIGINT', (signal) => void stop(signal));
process.once('SIGTERM', (signal) => void stop(signal));

try {
  // Listening starts the migrations (app.ts); a port already taken stops here, database untouched.
  await app.listen({ port: config.port, host: config.host });
  await app.migrated();
  if (config.simCars > 0) await builtApp(app).services.startSimCars();
} catch (error) {
  app.log.fatal({ err: error }, 'start-up failed');
  await app.close().catch(() => undefined);
  process.exit(1);
}
