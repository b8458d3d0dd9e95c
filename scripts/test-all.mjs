// The README's second command: installs what the tests need, then runs every check CI runs:
// typecheck, lint, build, unit + integration tests (PGlite and PostgreSQL) and the browser tests,
// then repeats what failed at the end.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeRuntime } from './lib/node-runtime.mjs';
import { ensureDependencies, run } from './lib/npm.mjs';
import { ensurePostgres } from './lib/postgres.mjs';
import { ensureSystemPackages } from './lib/system.mjs';
import { printFailures, printStepTimes, runScript, runVitest, vitestWorkspaces } from './lib/test-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// First: on an older Node this installs Node 24 (as root) and goes on under it.
await ensureNodeRuntime();
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
// Nothing is worth testing when these fail: they stop the run at once.
for (const step of ['typecheck', 'lint', 'build']) timed(step, () => run(root, step, env));
// The suites all run whatever fails, so one run tells everything that fails, and what failed is
// repeated at the end, where CI's tail shows it.
const failed = [];
// One suite at a time (the root package's order): each is CPU-bound on two cores by itself (the server's
// three workers, the web suite's two). Side by side they took longer than one after the other,
// measured on this machine on 28 Nov 2026: server 568 s with web 195 s and car 34 s beside it,
// against 336 + 56 + 20 s alone — each slowed the other down more than the overlap saved.
for (const workspace of vitestWorkspaces(root))
  if (!timed(workspace, () => runVitest(root, workspace, env)))
    failed.push({ name: workspace, vitest: true });
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
