// The README's second command: installs what the tests need, then runs every check CI runs:
// typecheck, lint, build, unit + integration tests (PGlite and PostgreSQL) and the browser tests.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies, ensureNodeVersion, run } from './lib/npm.mjs';
import { ensurePostgres } from './lib/postgres.mjs';
import { ensureSystemPackages } from './lib/system.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

ensureNodeVersion();
ensureSystemPackages('test');
ensureDependencies(root);
const env = { ...process.env, TEST_PG_ADMIN_URL: await ensurePostgres(root) };

const started = Date.now();
for (const step of ['typecheck', 'lint', 'build', 'test:unit', 'test:e2e']) run(root, step, env);
console.info(`[test:all] every check passed in ${Math.round((Date.now() - started) / 1000)} s`);
