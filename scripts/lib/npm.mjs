// Installs the npm dependencies when they are missing or older than the lockfile.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDependencies(root) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.info('[setup] installing npm dependencies (npm ci) …');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

/** Runs `npm run <script>`; on failure says which step failed and exits with its code. */
export function run(root, script, env = process.env) {
  console.info(`[run] npm run ${script}`);
  try {
    execFileSync('npm', ['run', script], { cwd: root, stdio: 'inherit', env });
  } catch (error) {
    console.error(`[run] npm run ${script} failed`);
    process.exit(typeof error.status === 'number' && error.status > 0 ? error.status : 1);
  }
}
