/**
 * The PostgreSQL backup of deploy/: deploy/backup/pg-backup.sh run as telerace-backup.service runs
 * it — as the postgres user (runuser), after the unit's ExecStartPre made its folder — against the
 * test server (TEST_PG_ADMIN_URL, trust auth); then the shipped unit itself under a real systemd
 * (test/systemd.ts). Needs root, as CI runs.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, postgresUrl } from '../test/postgres-admin.js';
import { startUserManager, systemdMissing, type UserManager } from '../test/systemd.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../../..');
const SCRIPT = join(ROOT, 'deploy/backup/pg-backup.sh');
const UNIT_DIR = '/var/backups/telerace';
const DUMP_NAME = /^(.+)-\d{4}-\d\d-\d\dT\d{6}Z\.dump$/;

const database = `telerace_backup_test_${process.pid}_${Date.now()}`;
/** libpq's variables for the test server, as a drop-in or `runuser` would set them. */
const server = (() => {
  const url = new URL(postgresUrl(database));
  return { PGHOST: url.hostname, PGPORT: url.port || '5432' };
})();

const uidOf = async (user: string) => Number((await run('id', ['-u', user])).stdout.trim());
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** What the unit's ExecStartPre runs, then its ExecStart as postgres; the script's output. */
async function backUp(dir: string, env: Record<string, string> = {}) {
  await run('install', ['-d', '-m', '0700', '-o', 'postgres', '-g', 'postgres', dir]);
  const { stdout } = await run(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      'env',
      ...Object.entries({ ...server, TELERACE_BACKUP_DIR: dir, ...env }).map(([k, v]) => `${k}=${v}`),
      SCRIPT,
    ],
    { env: { PATH: process.env.PATH ?? '' } },
  );
  return stdout;
}

describe('deploy/backup/pg-backup.sh', () => {
  let parent: string;
  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error('the backup runs as the postgres user: run the tests as root');
    await adminQuery(`CREATE DATABASE ${database}`);
    const client = new (await import('pg')).default.Client({ connectionString: postgresUrl(database) });
    await client.connect();
    await client.query("CREATE TABLE laps (car text); INSERT INTO laps VALUES ('car-7')");
    await client.end();
    // Where postgres may look in, as in /var/backups.
    parent = await mkdtemp(join(tmpdir(), 'telerace-pg-backup-'));
    await chmod(parent, 0o755);
  });
  afterAll(async () => {
    await adminQuery(`DROP DATABASE IF EXISTS ${database}`);
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('writes a dump only postgres reads, in a folder only postgres opens, that pg_restore reads', async () => {
    const dir = join(parent, 'private');
    const output = await backUp(dir, { TELERACE_BACKUP_DATABASE: database });
    const [dump, ...others] = await readdir(dir);
    expect(others).toEqual([]);
    expect(dump).toMatch(DUMP_NAME);
    expect(output).toMatch(new RegExp(`^pg-backup: ${dir}/${dump}, \\d+ bytes\\n$`));
    const postgres = await uidOf('postgres');
    expect(await stat(dir)).toMatchObject({ uid: postgres });
    expect(await mode(dir)).toBe('700');
    expect(await stat(join(dir, dump as string))).toMatchObject({ uid: postgres });
    expect(await mode(join(dir, dump as string))).toBe('600');
    const { stdout } = await run('pg_restore', ['--list', join(dir, dump as string)]);
    expect(stdout).toMatch(/TABLE DATA public laps/);
  });

  it('keeps the newest KEEP dumps and never touches other files', async () => {
    const dir = join(parent, 'rotation');
    await run('install', ['-d', '-m', '0700', '-o', 'postgres', '-g', 'postgres', dir]);
    // A month of older dumps, and what an operator keeps beside them.
    const old = Array.from(
      { length: 30 },
      (_, day) => `${database}-2026-01-${String(day + 1).padStart(2, '0')}T033000Z.dump`,
    );
    const kept = ['before-upgrade-2026-01-15.dump', `${database}-notes.txt`, 'other-2026-01-01T033000Z.dump'];
    for (const name of [...old, ...kept]) await writeFile(join(dir, name), 'x');
    const output = await backUp(dir, { TELERACE_BACKUP_DATABASE: database, TELERACE_BACKUP_KEEP: '14' });
    const files = (await readdir(dir)).sort();
    const dumps = files.filter((name) => name.startsWith(`${database}-`) && name.endsWith('Z.dump'));
    expect(dumps).toHaveLength(14);
    // The new one and the 13 most recent of the old ones.
    expect(dumps.slice(0, 13)).toEqual(old.slice(-13));
    expect(files).toEqual(expect.arrayContaining(kept));
    expect(output.match(/^pg-backup: removed /gm)).toHaveLength(17);
  });

  it('leaves nothing behind and removes nothing when the dump fails', async () => {
    const dir = join(parent, 'failing');
    await run('install', ['-d', '-m', '0700', '-o', 'postgres', '-g', 'postgres', dir]);
    const old = Array.from({ length: 3 }, (_, day) => `missing_db-2026-01-0${day + 1}T033000Z.dump`);
    for (const name of old) await writeFile(join(dir, name), 'x');
    await expect(
      backUp(dir, { TELERACE_BACKUP_DATABASE: 'missing_db', TELERACE_BACKUP_KEEP: '1' }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/database "missing_db" does not exist/) });
    expect((await readdir(dir)).sort()).toEqual(old);
  });

  it('refuses a folder others may open', async () => {
    const dir = join(parent, 'open');
    await run('install', ['-d', '-m', '0755', '-o', 'postgres', '-g', 'postgres', dir]);
    await expect(
      run('runuser', ['-u', 'postgres', '--', 'env', `TELERACE_BACKUP_DIR=${dir}`, SCRIPT]),
    ).rejects.toMatchObject({
      stderr: `pg-backup: ${dir} must be a folder owned by postgres with mode 0700\n`,
    });
  });
});

describe.skipIf(systemdMissing())('deploy/systemd/telerace-backup.service under a real systemd', () => {
  let manager: UserManager;
  let dir: string;
  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${database}_unit`);
    manager = await startUserManager();
    // Not under /tmp: the unit has its own (PrivateTmp=).
    dir = join('/var/backups', `telerace-test-${process.pid}-${Date.now()}`);
  }, 30_000);
  afterAll(async () => {
    await manager?.stop();
    await rm(dir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${database}_unit`);
  });

  it('makes its folder, then dumps the database as postgres', async () => {
    const log = join(manager.runtimeDir, 'backup.log');
    const shipped = await readFile(join(ROOT, 'deploy/systemd/telerace-backup.service'), 'utf8');
    await manager.install({
      'telerace-backup.service': shipped
        .replaceAll(UNIT_DIR, dir)
        .replaceAll('/opt/telerace/current', ROOT)
        .replaceAll('/opt/telerace', ROOT),
      'telerace-backup.service.d/test.conf': `[Service]\nEnvironment=TELERACE_BACKUP_DATABASE=${database}_unit PGHOST=${server.PGHOST} PGPORT=${server.PGPORT}\nStandardOutput=truncate:${log}\nStandardError=inherit\n`,
    });
    const started = await manager.systemctl('start', 'telerace-backup.service');
    expect(started.stderr, await readFile(log, 'utf8').catch(() => '(no output)')).toBe('');
    expect(await manager.state('telerace-backup.service')).toMatchObject({
      Result: 'success',
      ExecMainStatus: 0,
    });
    const [dump] = await readdir(dir);
    expect(dump).toMatch(DUMP_NAME);
    expect(await stat(dir)).toMatchObject({ uid: await uidOf('postgres') });
    expect(await mode(dir)).toBe('700');
    expect(await mode(join(dir, dump as string))).toBe('600');
  });
});
