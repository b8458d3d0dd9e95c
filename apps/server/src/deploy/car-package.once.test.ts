/**
 * The car agent's package (`npm run car:pack`, apps/car/scripts/pack.mjs) as a car's Pi gets it
 * (docs/car.md "Install on Raspberry Pi OS"): packed, installed by npm into an empty prefix with
 * no registry (`--offline`: it has no dependencies), and its program run from there — `--help`,
 * a hardware drive whose library sits beside it where the docs install it, and the simulator
 * against a listening server, which then lists the car online. In the server's suite because the
 * server is the other end; the database plays no part (once, on PGlite).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, lineAppears } from '../test/process.js';
import { createCar, useListeningTestApp } from '../test/sockets.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../../..');
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('the car agent package', () => {
  const testApp = useListeningTestApp();
  let work: string;
  /** Stands in for /usr/local (`npm install -g --prefix /usr/local`). */
  let prefix: string;
  let installed: string;
  let program: string;
  let version: string;
  const children: ChildProcess[] = [];
  // `#!/usr/bin/env node`: the Node running the tests, as /usr/local/bin/node on the Pi.
  const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'telerace-car-package-'));
    prefix = join(work, 'usr-local');
    installed = join(prefix, 'lib', 'node_modules', 'telerace-car');
    program = join(prefix, 'bin', 'telerace-car');
    ({ version } = await readJson(join(ROOT, 'apps/car/package.json')));
    await run(process.execPath, [join(ROOT, 'apps/car/scripts/pack.mjs'), '--destination', work]);
    const tarball = join(work, `telerace-car-${version}.tgz`);
    await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball]);
  }, 90_000);
  afterAll(async () => {
    for (const child of children) await killProcess(child);
    await rm(work, { recursive: true, force: true });
  });

  /** The installed program with `args`, its output kept for lineAppears. */
  function start(args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
    const child = spawn(program, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  }

  it('installs as one package with nothing to download: the bundle and its camera runner, the unit, a README and notices', async () => {
    expect(await readdir(join(prefix, 'lib', 'node_modules'))).toEqual(['telerace-car']);
    expect((await readdir(installed)).sort()).toEqual([
      'README.md',
      'THIRD-PARTY-NOTICES.md',
      'gst-runner.py',
      'main.js',
      'package.json',
      'telerace-car.service',
    ]);
    const manifest = await readJson(join(installed, 'package.json'));
    const root = await readJson(join(ROOT, 'package.json'));
    expect(manifest).toMatchObject({ name: 'telerace-car', version, bin: { 'telerace-car': 'main.js' } });
    expect(manifest.engines).toEqual(root.engines);
    expect(manifest.dependencies).toBeUndefined();
    const unit = await readFile(join(installed, 'telerace-car.service'), 'utf8');
    expect(unit).toBe(await readFile(join(ROOT, 'deploy/systemd/telerace-car.service'), 'utf8'));
    // The unit runs the program this install put in <prefix>/bin.
    expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/node \/usr\/local\/bin\/telerace-car /m);
    expect(await readFile(join(installed, 'THIRD-PARTY-NOTICES.md'), 'utf8')).toMatch(/## ws [\s\S]*## zod /);
  });

  it('runs --help and --version from the installed program', async () => {
    const help = await run(program, ['--help'], { env });
    expect(help.stdout).toContain('usage: telerace-car --server URL --car ID');
    const said = await run(program, ['--version'], { env });
    expect(said.stdout.trim()).toBe(version);
  });

  it('loads a drive library installed beside it (npm install -g --prefix …), and names it when missing', async () => {
    const args = [
      '--server',
      `http://${testApp.host}`,
      '--car',
      '1',
      '--drive',
      'pca9685',
      '--camera',
      'none',
    ];
    const missing = await run(program, args, { env: { ...env, CAR_SECRET: 'x' } }).catch((error) => error);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('needs the i2c-bus package');
    // Where `npm install -g --prefix <prefix> i2c-bus` puts it: a stand-in that accepts every write.
    const library = join(prefix, 'lib', 'node_modules', 'i2c-bus');
    await mkdir(library);
    await writeFile(
      join(library, 'package.json'),
      '{ "name": "i2c-bus", "version": "0.0.0", "main": "index.js" }',
    );
    await writeFile(
      join(library, 'index.js'),
      'exports.openSync = () => ({ writeByteSync() {}, readByteSync() { return 0; } });',
    );
    const agent = start(args, { CAR_SECRET: 'x' });
    await expect(lineAppears(agent, /neutral \(start-up\)/)).resolves.toBeDefined();
  });

  it('drives the simulator against the server, which lists the car online', async () => {
    const { app } = testApp;
    const { carId, secret, adminHeaders } = await createCar(app, 'Packaged car');
    const agent = start(['--server', `http://${testApp.host}`, '--car', String(carId), '--drive', 'sim'], {
      CAR_SECRET: secret,
    });
    await lineAppears(agent, new RegExp(`welcomed as car ${carId}`));
    // Its camera's runner, installed beside main.js, runs here (GStreamer's Python bindings are).
    await lineAppears(agent, /video: run-time encoder control \(bitrate, keyframes\) through gst-runner/);
    const list = await app.inject({ method: 'GET', url: '/api/admin/cars', headers: adminHeaders });
    const listed = (list.json() as { id: number; status: string }[]).find((car) => car.id === carId);
    expect(listed?.status).toBe('online');
  });
});
