// Runs the test suites whatever fails, and repeats what failed at the very end.
// CI shows only the tail of a run's output: a server test that failed ten minutes before the web
// and browser suites ended was out of sight, and the next run, green, could not tell which it was.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspaces whose `test` script runs Vitest, in the root package's order. */
export function vitestWorkspaces(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return workspaces.filter((workspace) => {
    const { scripts = {} } = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8'));
    return /^vitest run\b/.test(scripts.test ?? '');
  });
}

/** Where a workspace's failures go (git-ignored test-results/). */
const reportOf = (root, workspace) =>
  join(root, 'test-results', `${workspace.replaceAll('/', '-')}-failures.json`);
const reporter = join(dirname(fileURLToPath(import.meta.url)), 'failure-reporter.mjs');

/** `npm run <script> [-w workspace] -- args`; true when it passed. */
function passes(root, script, workspace, args, env) {
  console.info(`[run] npm run ${script}${workspace ? ` -w ${workspace}` : ''}`);
  try {
    const where = workspace ? ['-w', workspace] : [];
    execFileSync('npm', ['run', script, ...where, ...(args.length ? ['--', ...args] : [])], {
      cwd: root,
      stdio: 'inherit',
      env,
    });
    return true;
  } catch {
    console.error(`[run] npm run ${script}${workspace ? ` -w ${workspace}` : ''} failed`);
    return false;
  }
}

/** One workspace's Vitest suite, its failures also written down for the closing summary; true when it passed. */
export function runVitest(root, workspace, env) {
  const report = reportOf(root, workspace);
  mkdirSync(join(root, 'test-results'), { recursive: true });
  rmSync(report, { force: true });
  const args = ['--reporter=default', `--reporter=${reporter}`];
  return passes(root, 'test', workspace, args, { ...env, TEST_FAILURES_FILE: report });
}

/** A root script (the browser tests); true when it passed. */
export const runScript = (root, script, env) => passes(root, script, undefined, [], env);

/** The message and the project's own stack lines of an error, without colour codes. */
const shortened = (text) =>
  text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => !/node_modules|node:internal|<anonymous>/.test(line))
    .slice(0, 12)
    .map((line) => `      ${line}`)
    .join('\n');

/** What failed in a workspace's Vitest run, as its reporter wrote it down. */
function vitestFailures(root, workspace) {
  const report = reportOf(root, workspace);
  if (!existsSync(report)) return ['    (nothing written down: the run stopped before Vitest reported)'];
  const failures = JSON.parse(readFileSync(report, 'utf8'));
  if (failures.length === 0) return ['    (no failure written down: see the output above)'];
  return failures.map(({ project, file, test, errors }) => {
    const where = [project && `[${project}]`, file?.replace(`${root}/`, ''), test]
      .filter(Boolean)
      .join(' › ');
    return `  ${where}\n${errors.map(shortened).join('\n')}`;
  });
}

/** Prints, last, each failed suite and what failed in it. */
export function printFailures(root, failed) {
  console.error('\n[test:all] FAILED — what failed, repeated from above:');
  for (const suite of failed) {
    console.error(`\n[test:all] ${suite.name}`);
    if (suite.vitest) for (const line of vitestFailures(root, suite.name)) console.error(line);
    else console.error('    see its own summary above');
  }
}

/** One line per step with its wall time and share of the run. */
export function printStepTimes(steps, totalSeconds) {
  console.info('\n[test:all] where the time went:');
  for (const { name, seconds } of steps) {
    const share = totalSeconds > 0 ? Math.round((100 * seconds) / totalSeconds) : 0;
    console.info(`  ${name.padEnd(24)} ${seconds.toFixed(0).padStart(5)} s  ${String(share).padStart(3)} %`);
  }
}
