// The README's second command: installs what the tests need, then runs every check CI runs:
// typecheck, lint, build, unit + integration tests (PGlite and PostgreSQL) and the browser tests,
// then repeats what failed at the end.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies, ensureNodeVersion, run } from './lib/npm.mjs';
import { ensurePostgres } from './lib/postgres.mjs';
import { ensureSystemPackages } from './lib/system.mjs';
import { printFailures, printStepTimes, runScript, runVitest, vitestWorkspaces } from './lib/test-report.mjs';

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
// real processes, sockets, PostgreSQL and the clock: 14.5 CPU-min in a 13-min CI run): the other
// suites, then the browser tests, run beside it, one after another, each printed as a block when
// it ends. One after the other they took 821 s on a slow day; the web and car suites beside the
// server, 747 s.
const SERVER = 'apps/server';
const E2E = 'e2e (browser tests)';
const suite = async (name, held, work) => {
  const passed = await timedAsync(held ? `${name} (beside)` : name, work);
  if (!passed) failed.push({ name, vitest: name !== E2E });
};
await Promise.all([
  suite(SERVER, false, () => runVitest(root, SERVER, env)),
  (async () => {
    for (const workspace of vitestWorkspaces(root).filter((w) => w !== SERVER))
      await suite(workspace, true, () => runVitest(root, workspace, env, { held: true }));
    await suite(E2E, true, () => runScript(root, 'test:e2e', env, { held: true }));
  })(),
]);
const seconds = Math.round((Date.now() - started) / 1000);
printStepTimes(steps, seconds);
if (failed.length > 0) {
  printFailures(root, failed);
  console.error(`[test:all] ${failed.length} suite(s) failed after ${seconds} s`);
  process.exit(1);
}
console.info(`[test:all] every check passed in ${seconds} s`);
