// The README's second command: installs what the tests need, then runs every check CI runs:
// typecheck, lint, build, unit + integration tests (PGlite and PostgreSQL) and the browser tests,
// then repeats what failed at the end.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies, ensureNodeVersion, run } from './lib/npm.mjs';
import { ensurePostgres } from './lib/postgres.mjs';
import { ensureSystemPackages } from './lib/system.mjs';
import {
  printFailures,
  printStepTimes,
  runScript,
  runVitestAsync,
  vitestWorkspaces,
} from './lib/test-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

ensureNodeVersion();
ensureSystemPackages('test');
ensureDependencies(root);
const env = { ...process.env, TEST_PG_ADMIN_URL: await ensurePostgres(root) };

const started = Date.now();
/** Each step's wall time, printed at the end: where the run's minutes went. */
const steps = [];
const timed = (name, work) => {
  const from = Date.now();
  const result = work();
  steps.push({ name, seconds: (Date.now() - from) / 1000 });
  return result;
};
const timedAsync = async (name, work) => {
  const from = Date.now();
  const result = await work();
  steps.push({ name, seconds: (Date.now() - from) / 1000 });
  return result;
};
// Nothing is worth testing when these fail: they stop the run at once.
for (const step of ['typecheck', 'lint', 'build']) timed(step, () => run(root, step, env));
// The suites all run whatever fails, so one run tells everything that fails, and what failed is
// repeated at the end, where CI's tail shows it.
const failed = [];
// The server's suite is the long one and leaves part of the two cores idle (its files wait on
// real processes, sockets and PostgreSQL): the other suites run beside it, one after another,
// each printed as a block when it ends (374 + 72 + 21 s one after the other; 397 s side by side).
const SERVER = 'apps/server';
const suite = async (workspace, held) => {
  const passed = await timedAsync(held ? `${workspace} (beside)` : workspace, () =>
    runVitestAsync(root, workspace, env, { held }),
  );
  if (!passed) failed.push({ name: workspace, vitest: true });
};
await Promise.all([
  suite(SERVER, false),
  (async () => {
    for (const workspace of vitestWorkspaces(root).filter((w) => w !== SERVER)) await suite(workspace, true);
  })(),
]);
if (!timed('e2e (browser tests)', () => runScript(root, 'test:e2e', env)))
  failed.push({ name: 'e2e (browser tests)', vitest: false });
const seconds = Math.round((Date.now() - started) / 1000);
printStepTimes(steps, seconds);
if (failed.length > 0) {
  printFailures(root, failed);
  console.error(`[test:all] ${failed.length} suite(s) failed after ${seconds} s`);
  process.exit(1);
}
console.info(`[test:all] every check passed in ${seconds} s`);
