// The README's first command: installs what is missing, builds, and starts the whole product on
// http://localhost:8080 with the embedded database.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeRuntime } from './lib/node-runtime.mjs';
import { ensureDependencies, run } from './lib/npm.mjs';
import { ensureSystemPackages } from './lib/system.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// First: on an older Node this installs Node 24 (as root) and goes on under it.
await ensureNodeRuntime();
ensureSystemPackages('run');
ensureDependencies(root);
run(root, 'build');

const env = {
  ...process.env,
  PORT: process.env.PORT ?? '8080',
  // The address printed below: sockets are accepted from PUBLIC_URL's origin only, so open the
  // site at exactly this address (or set PUBLIC_URL to the one you use).
  PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? '8080'}`,
  // The demo's admin and driver (credentials printed at start); set DEMO_ACCOUNTS=false to skip.
  DEMO_ACCOUNTS: process.env.DEMO_ACCOUNTS ?? 'true',
  // Two simulated cars whose control codes are printed at start; set SIM_CARS=0 to skip.
  SIM_CARS: process.env.SIM_CARS ?? '2',
  // Warnings and errors only, so the banners above stay readable; LOG_LEVEL=info shows requests.
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
};
console.info(`[quickstart] starting Telerace on ${env.PUBLIC_URL} (Ctrl+C to stop)`);
const server = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], {
  cwd: root,
  env,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
