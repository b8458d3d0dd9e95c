// Makes sure a PostgreSQL server is reachable for the integration tests that run on real
// PostgreSQL, and returns the admin URL they create their throw-away databases with.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/** Used when we installed PostgreSQL ourselves: a stock Debian cluster wants a password over TCP. */
const INSTALLED_PASSWORD = 'telerace-tests';
const INSTALLED_URL = `postgres://postgres:${INSTALLED_PASSWORD}@127.0.0.1:5432/postgres`;

async function canConnect(root, url) {
  const { Client } = createRequire(join(root, 'package.json'))('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function startClusters() {
  if (!existsSync('/etc/postgresql')) return false;
  for (const version of readdirSync('/etc/postgresql')) {
    console.info(`[setup] starting PostgreSQL ${version} …`);
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  }
  return true;
}

export async function ensurePostgres(root) {
  const explicit = process.env.TEST_PG_ADMIN_URL;
  const url = explicit ?? DEFAULT_URL;
  if (await canConnect(root, url)) return url;
  if (!explicit && (await canConnect(root, INSTALLED_URL))) return INSTALLED_URL;

  const isRoot = process.getuid?.() === 0;
  const installedHere = !existsSync('/etc/postgresql');
  if (installedHere) {
    if (!isRoot) {
      console.error(
        '[setup] PostgreSQL is needed for the integration tests. Run as root:\n' +
          '  apt-get update && apt-get install -y --no-install-recommends postgresql\n' +
          'or set TEST_PG_ADMIN_URL to a server where you may create databases.',
      );
      process.exit(1);
    }
    console.info('[setup] installing PostgreSQL …');
    execFileSync('sh', ['-c', 'apt-get update && apt-get install -y --no-install-recommends postgresql'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  if (isRoot) startClusters();
  if (await canConnect(root, url)) return url;
  if (!explicit && isRoot && installedHere) {
    // Only on the cluster this script just installed: give its superuser a known test password.
    spawnSync(
      'runuser',
      ['-u', 'postgres', '--', 'psql', '-c', `ALTER ROLE postgres PASSWORD '${INSTALLED_PASSWORD}'`],
      {
        stdio: 'ignore',
      },
    );
    if (await canConnect(root, INSTALLED_URL)) return INSTALLED_URL;
  }
  console.error(
    `[setup] cannot reach PostgreSQL at ${explicit ? 'TEST_PG_ADMIN_URL' : url}; set TEST_PG_ADMIN_URL.`,
  );
  process.exit(1);
}
