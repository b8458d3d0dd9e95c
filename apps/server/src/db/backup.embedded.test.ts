/**
 * `npm run backup` and `npm run restore` as an operator runs them, around a real server process
 * on the embedded database (these commands are for PGlite only: `*.embedded.test.ts` runs on the
 * pglite project alone).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../test/app.js';
import {
  embeddedDatabaseEnv,
  entriesOpenToOthers,
  membersWhoCannotLogIn,
  runNpmScript,
  signUpMembers,
} from '../test/data-dir.js';
import { freePort, startServer, waitForStatus } from '../test/process.js';

describe('backup and restore of the embedded database', () => {
  let environment: TestEnvironment | undefined;
  let server: ChildProcess | undefined;
  afterEach(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await once(server, 'exit');
    }
    await environment?.dispose();
  });

  it('backup → wipe → restore gives back every account; both refuse while the server runs and on bad input', async () => {
    environment = await createTestEnvironment({ LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
    const env = embeddedDatabaseEnv(environment.env);
    const { dataDir } = environment;
    const dbDir = join(dataDir, 'db');
    const backup = join(dataDir, 'backups', 'telerace.tar.gz');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = async () => {
      server = startServer({ ...env, PORT: String(port) });
      await waitForStatus(`${base}/api/ready`, 200, 30_000);
    };
    const stop = async () => {
      server?.kill('SIGTERM');
      if (server) expect((await once(server, 'exit'))[0]).toBe(0);
    };
    await start();
    const members = await signUpMembers(base, 4);

    // PGlite belongs to the running server: no copy is taken under it.
    const whileRunning = await runNpmScript('backup', [backup], env);
    expect(whileRunning.code).toBe(1);
    expect(whileRunning.stderr).toMatch(
      new RegExp(
        `^backup failed: DATA_DIR ${dataDir} is in use by a running Telerace server \\(pid ${server?.pid}, started [^)]+\\); stop it first\\n$`,
      ),
    );
    expect(existsSync(backup)).toBe(false);
    await stop();

    rmSync(join(dataDir, 'backups'), { force: true, recursive: true });
    writeFileSync(join(dataDir, 'not-a-backup.tar.gz'), 'hello');
    const made = await runNpmScript('backup', [backup], env);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(lastLine(made.stdout)).toMatch(new RegExp(`^Backup done: 4 accounts, [\\d.]+ MB in ${backup} `));
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, 'telerace.lock'))).toBe(false);

    rmSync(dbDir, { recursive: true });

    for (const [file, message] of [
      [join(dataDir, 'missing.tar.gz'), `Backup file not found: ${join(dataDir, 'missing.tar.gz')}`],
      [
        join(dataDir, 'not-a-backup.tar.gz'),
        `${join(dataDir, 'not-a-backup.tar.gz')} is not a Telerace database backup (expected the .tar.gz written by npm run backup)`,
      ],
    ] as const) {
      const refused = await runNpmScript('restore', [file], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`restore failed: ${message}\n`);
      expect(existsSync(dbDir)).toBe(false);
    }

    const restored = await runNpmScript('restore', [backup], env);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(lastLine(restored.stdout)).toBe(
      `Restore done: 4 accounts from ${backup} in ${dbDir}; start the server`,
    );
    expect(entriesOpenToOthers(dbDir)).toEqual([]);

    // A database in place is replaced only when asked, and then kept aside.
    const again = await runNpmScript('restore', [backup], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `restore failed: ${dbDir} already holds a database; add --force to replace it (it is then kept as db.before-restore-<time>)\n`,
    );
    const forced = await runNpmScript('restore', [backup, '--force'], env);
    expect(forced.code).toBe(0);
    const kept = readdirSync(dataDir).filter((name) => name.startsWith('db.before-restore-'));
    expect(kept).toHaveLength(1);
    expect(existsSync(join(dataDir, kept[0] as string, 'PG_VERSION'))).toBe(true);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('db.restoring-'))).toEqual([]);

    await start();
    expect(await membersWhoCannotLogIn(base, members)).toEqual([]);
    await stop();
  }, 240_000);
});

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
