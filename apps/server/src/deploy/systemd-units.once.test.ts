/**
 * The units of deploy/systemd, checked by systemd itself: `systemd-analyze verify` on every one,
 * then the server's unit run by a real systemd (a user manager, test/systemd.ts) with only what
 * this machine cannot have replaced — the service user (`nobody` stands in for `telerace`), the
 * release (this repository for /opt/telerace/current, and for a car's checkout in /opt/telerace),
 * the settings file (deploy/telerace.env.example, filled in) and the program (a probe instead of
 * the server). Skipped where systemd is not
 * installed (CI installs it: scripts/lib/system.mjs).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnvFile } from '../config/env-file.js';
import { loadConfig } from '../config/load.js';
import { freeLoopbackPort } from '../free-port.js';
import { EXAMPLE_FILL, filledEnvExample } from '../test/env-example.js';
import { startUserManager, systemdMissing, type UserManager } from '../test/systemd.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../../..');
const UNITS = join(ROOT, 'deploy/systemd');

/** The installed unit's text: the release in /opt/telerace/current (docs/operations.md "Deploy"). */
const installed = async (name: string) =>
  (await readFile(join(UNITS, name), 'utf8'))
    .replaceAll('/opt/telerace/current', ROOT)
    .replaceAll('/opt/telerace', ROOT);

/** The unit with each `Key=` line replaced (null: removed); a key it lacks is a test to update. */
function withSettings(unit: string, settings: Record<string, string | null>): string {
  let text = unit;
  for (const [key, value] of Object.entries(settings)) {
    const line = new RegExp(`^${key}=.*$\\n?`, 'm');
    if (!line.test(text)) throw new Error(`the unit has no ${key}=`);
    text = text.replace(line, value === null ? '' : `${key}=${value}\n`);
  }
  return text;
}

/**
 * What the server's ExecStart runs, with the probe in place of `node apps/server/dist/main.js`:
 * systemd's own quoting (no `$` or `%`, which it would expand).
 */
function probeCommand(execStart: string, probe: string): string {
  const server = '/usr/local/bin/node apps/server/dist/main.js';
  if (!execStart.endsWith(server)) throw new Error(`ExecStart no longer ends with ${server}: ${execStart}`);
  return `${execStart.slice(0, -server.length)}${process.execPath} -e "${probe}"`;
}

/** Prints the interfaces Node sees (or the errno it gets), the environment and the working directory, as JSON. */
const INTERFACES_PROBE =
  "let interfaces; try { interfaces = Object.keys(require('node:os').networkInterfaces()) } catch (error) { interfaces = error.errno } process.stdout.write(JSON.stringify({ uid: process.getuid(), interfaces, env: process.env, cwd: process.cwd() }))";
/** "The database": connects to 127.0.0.1:PORT and stays, or exits 1 while nothing listens there. */
const DATABASE_PROBE =
  "require('node:net').connect(Number(process.env.PORT), '127.0.0.1').on('error', () => process.exit(1))";

describe('deploy/systemd: systemd-analyze verify', () => {
  it.skipIf(systemdMissing())('accepts every unit, without a single warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'telerace-units-'));
    try {
      const names = (await readdir(UNITS)).filter((name) => /\.(service|timer)$/.test(name));
      expect(names).toEqual(
        expect.arrayContaining(['telerace@.service', 'janus.service', 'telerace-car.service']),
      );
      const checked: string[] = [];
      for (const name of names) {
        await writeFile(join(dir, name), await installed(name));
        // A template is checked through an instance of it.
        if (name.endsWith('@.service')) {
          const instance = name.replace('@.', '@8081.');
          await symlink(name, join(dir, instance));
          checked.push(`./${instance}`);
        } else checked.push(`./${name}`);
      }
      const { stdout, stderr } = await run('systemd-analyze', ['verify', '--man=no', ...checked], {
        cwd: dir,
      });
      expect(`${stdout}${stderr}`).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(systemdMissing())('deploy/systemd: the units under a real systemd', () => {
  let manager: UserManager;
  let server: string;
  beforeAll(async () => {
    manager = await startUserManager();
    server = await installed('telerace@.service');
  }, 30_000);
  afterAll(async () => {
    await manager?.stop();
  });

  /** The server unit's probe run once (no restart), its stdout and stderr, and its end. */
  async function probeServerUnit(name: string, settings: Record<string, string | null>, envFile: string) {
    const out = join(manager.runtimeDir, `${name}.out`);
    const err = join(manager.runtimeDir, `${name}.err`);
    const file = join(manager.runtimeDir, `${name}.env`);
    await writeFile(file, envFile);
    const execStart = /^ExecStart=(.*)$/m.exec(server)?.[1] ?? '';
    await manager.install({
      [`${name}@.service`]: withSettings(server, {
        User: 'nobody',
        Group: 'nogroup',
        EnvironmentFile: file,
        ExecStart: probeCommand(execStart, INTERFACES_PROBE),
        Restart: 'no',
        // A user manager's StateDirectory= is under the manager's home, not /var/lib.
        StateDirectory: null,
        StateDirectoryMode: null,
        ...settings,
      }),
      [`${name}@.service.d/output.conf`]: `[Service]\nStandardOutput=truncate:${out}\nStandardError=truncate:${err}\n`,
    });
    const unit = `${name}@8081.service`;
    await manager.systemctl('start', unit);
    const state = await manager.waitFor(
      unit,
      (current) => current.ActiveState !== 'activating' && current.ActiveState !== 'active',
      20_000,
    );
    return { state, stdout: await readFile(out, 'utf8'), stderr: await readFile(err, 'utf8') };
  }

  it('lets Node list the interfaces (the drive channel needs AF_NETLINK), as an unprivileged user', async () => {
    const { state, stdout } = await probeServerUnit('allowed', {}, filledEnvExample());
    expect(state).toMatchObject({ Result: 'success', ExecMainStatus: 0 });
    const probe = JSON.parse(stdout) as { uid: number; interfaces: string[] };
    expect(probe.uid).not.toBe(0);
    expect(probe.interfaces).toContain('lo');
  });

  it('is what makes the difference: without AF_NETLINK Node cannot list them', async () => {
    const { stdout } = await probeServerUnit(
      'refused',
      { RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6' },
      filledEnvExample(),
    );
    // Node 24 throws; older ones returned no interface at all (werift then offers no candidate).
    expect(JSON.parse(stdout)).toMatchObject({ interfaces: constants.errno.EAFNOSUPPORT });
  });

  it('gives the server the filled-in example exactly as written, and PORT, HOST and DATA_DIR its own', async () => {
    const { stdout } = await probeServerUnit('environment', {}, filledEnvExample());
    const env = (JSON.parse(stdout) as { env: Record<string, string> }).env;
    const written = parseEnvFile(filledEnvExample()).values;
    for (const [name, value] of Object.entries(written)) expect(env[name], name).toBe(value);
    expect(env).toMatchObject({ PORT: '8081', HOST: '127.0.0.1', DATA_DIR: '/var/lib/telerace' });
    const config = loadConfig(env);
    expect(config.jwtSecret).toBe(EXAMPLE_FILL.JWT_SECRET);
    expect(config.driveChannel.udpPorts).toEqual({ min: 40000, max: 40199 });
  });

  it('runs in the release `current` points at when it starts (WorkingDirectory= through the symlink)', async () => {
    // Not under /tmp: the unit has its own (PrivateTmp=).
    const layout = await mkdtemp(join('/var/lib', 'telerace-layout-test-'));
    try {
      // Where the service user may go, as /opt/telerace.
      await chmod(layout, 0o755);
      // /opt/telerace/current -> releases/…: this repository plays the release.
      await symlink(ROOT, join(layout, 'current'));
      const { state, stdout, stderr } = await probeServerUnit(
        'through-current',
        { WorkingDirectory: join(layout, 'current') },
        filledEnvExample(),
      );
      expect(state, stderr).toMatchObject({ Result: 'success', ExecMainStatus: 0 });
      // The real folder: `node apps/server/dist/main.js` resolves in it, and so does everything the
      // bundle finds beside itself (the drive channel's worker, node_modules, the web app).
      expect((JSON.parse(stdout) as { cwd: string }).cwd).toBe(await realpath(ROOT));
    } finally {
      await rm(layout, { recursive: true, force: true });
    }
  });

  it("reads environment files as config/env-file.ts does (systemd's parser, case by case)", async () => {
    const corpus = [
      '# a comment',
      '; another',
      'T_PLAIN=plain',
      'T_NOTE=value # inline',
      'T_QUOTED="quoted # x" # after',
      '  T_SPACED = spaced  ',
      "T_SINGLE='single' tail",
      'T_JOINED=back\\',
      'slash',
      'T_ESCAPES="dq \\$x \\n \\\\ \\" end"',
      'T_EMPTY=',
      'T_NO_EQUALS',
      '1T_DIGIT=x',
      'T-DASH=y',
      'T_SEMI=a;b',
      'T_INNER=x"y z"',
      'T_AFTER="x"y',
      'T_TRAIL=trail\\  ',
      '# comment ending \\',
      'T_SWALLOWED=1',
      'T_MULTI="multi',
      'line"',
      'T_CRLF=1\r',
      'T_TWICE=1',
      'T_TWICE=2',
      'T_LAST=no newline',
    ].join('\n');
    const out = join(manager.runtimeDir, 'corpus.out');
    const file = join(manager.runtimeDir, 'corpus.env');
    await writeFile(file, corpus);
    await manager.install({
      'corpus.service': `[Service]\nType=oneshot\nEnvironmentFile=${file}\nExecStart=${process.execPath} -e "process.stdout.write(JSON.stringify(process.env))"\nStandardOutput=truncate:${out}\n`,
    });
    const started = await manager.systemctl('start', 'corpus.service');
    expect(started.stderr).toBe('');
    const env = JSON.parse(await readFile(out, 'utf8')) as Record<string, string>;
    const fromFile = Object.fromEntries(Object.entries(env).filter(([name]) => /^(T|1T)/.test(name)));
    expect(fromFile).toEqual(parseEnvFile(corpus).values);
    expect(fromFile).toMatchObject({ T_NOTE: 'value # inline', T_QUOTED: 'quoted # x# after' });
    expect(fromFile.T_SWALLOWED).toBeUndefined();
  });

  it('retries a server that cannot reach its database for as long as it takes', async () => {
    const port = await freeLoopbackPort();
    const execStart = /^ExecStart=(.*)$/m.exec(server)?.[1] ?? '';
    await manager.install({
      'late-db@.service': withSettings(server, {
        User: 'nobody',
        Group: 'nogroup',
        EnvironmentFile: null,
        ExecStart: probeCommand(execStart, DATABASE_PROBE),
        StateDirectory: null,
        StateDirectoryMode: null,
      }),
      // Tries 50 times faster than shipped, so systemd's default start limit (5 in 10 s) is met.
      'late-db@.service.d/fast.conf': '[Service]\nRestartSec=100ms\n',
    });
    const unit = `late-db@${port}.service`;
    await manager.systemctl('start', '--no-block', unit);
    await manager.waitFor(unit, (state) => state.NRestarts >= 8, 30_000);
    const database = createServer().listen(port, '127.0.0.1');
    await once(database, 'listening');
    try {
      const state = await manager.waitFor(unit, (current) => current.SubState === 'running', 10_000);
      expect(state).toMatchObject({ ActiveState: 'active', Result: 'success' });
      await manager.systemctl('stop', unit);
    } finally {
      database.close();
    }
  });

  it('would give up after 5 tries with systemd’s default start limit', async () => {
    const port = await freeLoopbackPort();
    await manager.install({
      'late-db@.service.d/default-limit.conf': '[Unit]\nStartLimitIntervalSec=10s\n',
    });
    const unit = `late-db@${port}.service`;
    await manager.systemctl('start', '--no-block', unit);
    const state = await manager.waitFor(unit, (current) => current.ActiveState === 'failed', 30_000);
    expect(state).toMatchObject({ SubState: 'failed', NRestarts: 5 });
    // And stays down: no restart comes any more (systemd 252 keeps Result=exit-code).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await manager.state(unit)).toEqual(state);
  });

  it('never gives up on Janus or a car agent either', async () => {
    await manager.install({
      'telerace@.service': server,
      'janus.service': await installed('janus.service'),
      'telerace-car.service': await installed('telerace-car.service'),
    });
    for (const unit of ['janus.service', 'telerace-car.service', 'telerace@8081.service']) {
      const { stdout } = await manager.systemctl(
        'show',
        unit,
        '--property=StartLimitIntervalUSec,Restart,LoadState',
      );
      expect(stdout.trim().split('\n').sort(), unit).toEqual([
        'LoadState=loaded',
        'Restart=always',
        'StartLimitIntervalUSec=0',
      ]);
    }
  });
});
