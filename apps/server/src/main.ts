/**
 * Entry point: reads the configuration, starts listening, then applies the database migrations
 * (/api/ready answers 503 until they are done), and shuts down cleanly on SIGINT/SIGTERM.
 */
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';

/** A stuck request or socket must not keep a stopping process alive forever. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      // One line, no stack: the message names the variable to fix.
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const config = readConfig();
const app = await buildApp(config);

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
process.once('SIGINT', (signal) => void stop(signal));
process.once('SIGTERM', (signal) => void stop(signal));

try {
  await app.listen({ port: config.port, host: config.host });
  await app.migrated();
  if (config.simCars > 0) await app.startSimCars();
} catch (error) {
  app.log.fatal({ err: error }, 'start-up failed');
  await app.close().catch(() => undefined);
  process.exit(1);
}
