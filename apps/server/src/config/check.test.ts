import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLE_FILL, filledEnvExample, readEnvExample } from '../test/env-example.js';
import { checkEnvFile, checkEnvironment } from './check.js';
import { parseEnvFile } from './env-file.js';
import { loadConfig } from './load.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../../..');
/** What deploy/systemd/telerace@.service's ExecStart sets before the server starts. */
const UNIT_COMMAND_LINE = { PORT: '8081', HOST: '127.0.0.1', DATA_DIR: '/var/lib/telerace' };

describe('deploy/telerace.env.example', () => {
  it('has comments on lines of their own only, and nothing systemd would drop', () => {
    const { values, notes } = parseEnvFile(readEnvExample());
    expect(notes).toEqual([]);
    for (const value of Object.values(values)) expect(value).not.toMatch(/#/);
  });

  it('is refused until every placeholder is replaced, each named without its secret', () => {
    const { problems, warnings } = checkEnvFile(readEnvExample(), UNIT_COMMAND_LINE);
    expect(warnings).toEqual([]);
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual(Object.keys(EXAMPLE_FILL));
    expect(problems[0]).toBe(
      "DATABASE_URL is still the example's placeholder CHANGE_ME: set a real value (got a value of 53 characters)",
    );
    expect(problems).toContain(
      `PUBLIC_URL is still the example's placeholder CHANGE_ME: set a real value (got "https://CHANGE_ME.example.com")`,
    );
  });

  it('filled in, gives the server exactly the values written', () => {
    const { values } = parseEnvFile(filledEnvExample());
    expect(checkEnvFile(filledEnvExample(), UNIT_COMMAND_LINE)).toEqual({
      problems: [],
      warnings: [],
      database: 'postgres',
    });
    const config = loadConfig({ ...values, ...UNIT_COMMAND_LINE });
    expect(config).toMatchObject({
      port: 8081,
      databaseUrl: 'postgres://telerace:db-password-sample@127.0.0.1:5432/telerace',
      publicUrl: 'https://telerace.example.com',
      trustProxy: 1,
      jwtSecret: EXAMPLE_FILL.JWT_SECRET,
      admin: { email: 'admin@example.com', password: 'admin password sample' },
      janusUrl: 'ws://127.0.0.1:8188',
      janusAdminKey: 'janus-admin-key-sample',
      janusRtpHost: '203.0.113.10',
      turnUrls: ['turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:5349'],
      turnSecret: 'turn-secret-sample',
      driveChannel: {
        enabled: true,
        publicIp: null,
        udpPorts: { min: 40000, max: 40199 },
        allowedNetworks: [],
      },
    });
  });
});

describe('checkEnvFile', () => {
  it('lists every problem of the environment block the docs used to show, secrets unechoed', () => {
    const secretLine = `${'s'.repeat(64)}  # openssl rand -base64 48; the same for every instance`;
    const pasted = [
      `JWT_SECRET=${secretLine}`,
      'JANUS_RTP_HOST=203.0.113.10  # the address the cars reach Janus at',
      'DRIVE_CHANNEL_UDP_PORTS=40000-40199  # UDP, open to browsers: the drive channel (driving.md)',
      'DRIVE_CHANNEL_PUBLIC_IP=203.0.113.10  # only behind 1:1 NAT: the address browsers reach',
    ].join('\n');
    const { problems } = checkEnvFile(pasted);
    const comment =
      'holds a comment ("#" after a blank), which an environment file keeps in the value: put comments on lines of their own';
    expect(problems).toEqual([
      `JWT_SECRET ${comment} (got a value of ${secretLine.length} characters)`,
      `JANUS_RTP_HOST ${comment} (got "203.0.113.10  # the address the cars reach Janus at")`,
      `DRIVE_CHANNEL_PUBLIC_IP ${comment} (got "203.0.113.10  # only behind 1:1 NAT: the address browsers reach")`,
      `DRIVE_CHANNEL_UDP_PORTS ${comment} (got "40000-40199  # UDP, open to browsers: the drive channel (driving.md)")`,
    ]);
    expect(problems.join('\n')).not.toContain('s'.repeat(64));
  });

  it('warns of a name the server does not read and of lines systemd drops, and still passes', () => {
    const result = checkEnvFile(
      'DATABSE_URL=postgres://x\nNODE_OPTIONS=--max-old-space-size=512\nJWT_SECRET\n',
      {
        JWT_SECRET: 'j'.repeat(32),
      },
    );
    expect(result).toEqual({
      problems: [],
      warnings: [
        'line 3: no "=" on this line: systemd ignores it',
        'DATABSE_URL is not a Telerace setting (a typo?): the server ignores it',
      ],
      database: 'pglite',
    });
  });

  it('reports checks across variables together with the wrong values', () => {
    const { problems } = checkEnvFile(
      'ADMIN_EMAIL=boss@example.com\nREDIS_URL=redis://127.0.0.1:6379\nPORT=x\n',
    );
    expect(problems).toEqual(['PORT must be an integer between 1 and 65535 (got "x")']);
    expect(checkEnvFile('ADMIN_EMAIL=boss@example.com\nREDIS_URL=redis://127.0.0.1:6379\n').problems).toEqual(
      [
        'ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
        expect.stringMatching(/^REDIS_URL needs DATABASE_URL/),
      ],
    );
  });
});

describe('checkEnvironment: a dry run', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'telerace-config-check-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes no JWT secret where none exists, and reads the one that does', async () => {
    expect(checkEnvironment({ DATA_DIR: dataDir }).problems).toEqual([]);
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(false);
    await writeFile(join(dataDir, 'jwt-secret'), 'short');
    expect(checkEnvironment({ DATA_DIR: dataDir }).problems).toEqual([
      `${join(dataDir, 'jwt-secret')} holds a secret shorter than 32 characters (delete it to generate a new one, or set JWT_SECRET)`,
    ]);
  });
});

describe('npm run config:check', () => {
  const configCheck = (args: string[], env: Record<string, string> = {}) =>
    run(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'apps/server/scripts/config-check.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('checks an env file as systemd reads it, plus the unit command line, and fails on a problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'telerace-config-check-'));
    try {
      const file = join(dir, 'telerace.env');
      await writeFile(file, filledEnvExample());
      const passed = await configCheck([file, 'PORT=8081', `DATA_DIR=${dir}`]);
      expect(passed).toMatchObject({ code: 0, stderr: '' });
      expect(passed.stdout).toBe(
        `config:check: ${file} is a valid configuration (PostgreSQL (DATABASE_URL)), 0 warning(s)\n`,
      );

      const secret = 'a-secret-of-some-length  # a note';
      await writeFile(file, `JWT_SECRET=${secret}\nPORT=70000\n`);
      const failed = await configCheck([file]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe(
        [
          'problem: PORT must be an integer between 1 and 65535 (got "70000")',
          `problem: JWT_SECRET holds a comment ("#" after a blank), which an environment file keeps in the value: put comments on lines of their own (got a value of ${secret.length} characters)`,
          '',
        ].join('\n'),
      );
      expect(failed.stderr).toBe(`config:check: 2 problem(s) in ${file}: the server would refuse to start\n`);
      expect((await configCheck([join(dir, 'missing.env')])).stderr).toBe(
        `config:check: ${join(dir, 'missing.env')} cannot be read (ENOENT): systemd would not start the unit either\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('checks its own environment without a file', async () => {
    const result = await configCheck([], { JWT_SECRET: 'j'.repeat(32), LOG_LEVEL: 'loud' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'problem: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")\n',
    );
  });
});
