/**
 * `telerace-car doctor` as an operator runs it: the real agent command (`main.ts doctor`) against a
 * real server process (its source, on a fresh embedded database) with a real car and its secret,
 * GStreamer's test pattern standing in for the camera. Each case asserts the lines and the exit
 * code the operator sees; docs/car.md shows the same runs' output.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const CAR_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_DIR = fileURLToPath(new URL('../../../server', import.meta.url));
const ADMIN = { email: 'doctor-admin@telerace.test', password: 'doctor-admin-Passw0rd!' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForReady(base: string, timeoutMs: number): Promise<void> {
  // A refused connection (not listening yet) is asked again, like a status other than 200.
  await vi.waitFor(async () => expect((await fetch(`${base}/api/ready`)).status).toBe(200), {
    timeout: timeoutMs,
    interval: 200,
  });
}

async function api<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(`${base}/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A real agent process driving the simulator as `carId`, once welcomed. */
async function startAgent(base: string, carId: number, secret: string): Promise<ChildProcess> {
  const agent = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      'src/main.ts',
      '--server',
      base,
      '--car',
      String(carId),
      '--camera',
      'none',
    ],
    {
      cwd: CAR_DIR,
      env: { PATH: process.env.PATH ?? '', CAR_SECRET: secret },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise<void>((resolve) => {
    let output = '';
    agent.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('welcomed as car')) resolve();
    });
  });
  return agent;
}

/** Runs `telerace-car doctor --quick ARGS` with CAR_SECRET; its output and exit code. */
async function doctor(
  args: string[],
  secret: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'src/main.ts', 'doctor', '--quick', ...args],
    {
      cwd: CAR_DIR,
      env: { PATH: process.env.PATH ?? '', CAR_SECRET: secret, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, lines: output.trim().split('\n') };
}

const line = (lines: string[], check: number) => lines.find((l) => new RegExp(`^. ${check} `).test(l)) ?? '';

describe('telerace-car doctor', () => {
  let server: ChildProcess | undefined;
  let dataDir: string;
  let base: string;
  let car: { id: number; secret: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'telerace-doctor-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: SERVER_DIR,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        PUBLIC_URL: base,
        DATA_DIR: join(dataDir, 'data'),
        LOG_LEVEL: 'warn',
        // The doctor never asks the server for video: no Janus to start beside the tests.
        VIDEO: 'off',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
      stdio: 'ignore',
    });
    await waitForReady(base, 90_000);
    const { accessToken } = await api<{ accessToken: string }>(base, '/login', {
      ...ADMIN,
      recaptchaToken: '',
    });
    const added = await api<{ car: { id: number }; secret: string }>(
      base,
      '/admin/cars',
      { name: 'Doctor car', image_url: null },
      accessToken,
    );
    car = { id: added.car.id, secret: added.secret };
  }, 120_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes every check for a good car (sim drive, test pattern camera) and exits 0', async () => {
    // 320×240: the camera and encoder checks must keep up on two cores shared with other tests.
    const { code, lines } = await doctor(
      ['--server', base, '--car', String(car.id), '--camera', 'test'],
      car.secret,
      { CAMERA_SIZE: '320x240' },
    );
    for (let check = 1; check <= 8; check++) expect(line(lines, check), lines.join('\n')).toMatch(/^✓/);
    expect(line(lines, 2)).toContain(`welcomed as car ${car.id}`);
    expect(line(lines, 4)).toMatch(/drive channel: open in \d+ ms/);
    expect(line(lines, 5)).toContain('simulated');
    expect(line(lines, 6)).toMatch(/fps at 320×240 \(configured 30\)/);
    // Steered as the agent steers it (gst-runner): the configured bitrate set, a keyframe requested.
    expect(line(lines, 7)).toMatch(
      /^✓ 7 encoder: x264enc \d+\.\d fps at 320×240 \(configured 30\), 400 kbit\/s, keyframe on request in \d+ ms$/,
    );
    expect(line(lines, 8)).toMatch(/loss 0\.0 %/);
    expect(lines.at(-1)).toBe('ready: every check passed');
    expect(code).toBe(0);
  }, 60_000);

  it('fails check 2 with a wrong secret, naming CAR_SECRET, and exits 1', async () => {
    const { code, lines } = await doctor(
      ['--server', base, '--car', String(car.id), '--camera', 'none'],
      'not-the-secret',
    );
    expect(line(lines, 1)).toMatch(/^✓/);
    expect(line(lines, 2)).toBe(
      `✗ 2 car socket: car secret refused (HTTP 401) for car ${car.id} → check CAR_SECRET (the admin page's Cars tab shows a new secret when it is rotated) and --car`,
    );
    expect(line(lines, 4)).toBe('– 4 drive channel: skipped, needs the car socket (check 2)');
    expect(code).toBe(1);
  }, 60_000);

  it('fails check 6 when the camera device is missing, and exits 1', async () => {
    const config = join(dataDir, 'car.json');
    writeFileSync(config, JSON.stringify({ camera: 'v4l2', video: { device: '/dev/video99' } }));
    const { code, lines } = await doctor(
      ['--server', base, '--car', String(car.id), '--config', config],
      car.secret,
    );
    expect(line(lines, 2)).toMatch(/^✓/);
    expect(line(lines, 6)).toBe(
      '✗ 6 camera: camera device /dev/video99 absent → plug the camera in (ls /dev/video* lists the devices), or set "video": {"device": …} in --config',
    );
    expect(line(lines, 7)).toBe('– 7 encoder: skipped, no camera (/dev/video99 absent)');
    expect(code).toBe(1);
  }, 60_000);

  it('fails check 1 when nothing listens at the server address, with the fix, and exits 1', async () => {
    const port = await freePort();
    const { code, lines } = await doctor(
      ['--server', `http://127.0.0.1:${port}`, '--car', String(car.id), '--camera', 'none'],
      car.secret,
    );
    expect(line(lines, 1)).toBe(
      `✗ 1 server reachable: nothing listens at 127.0.0.1:${port} (connection refused) → start the server, or correct --server (host and port)`,
    );
    expect(line(lines, 2)).toBe('– 2 car socket: skipped, needs the server (check 1)');
    expect(line(lines, 5)).toMatch(/^✓ 5 drive board/);
    expect(code).toBe(1);
  }, 60_000);

  it('fails check 2 when another agent runs as this car (it takes the socket back), and exits 1', async () => {
    const agent = await startAgent(base, car.id, car.secret);
    try {
      const { code, lines } = await doctor(
        ['--server', base, '--car', String(car.id), '--camera', 'none'],
        car.secret,
      );
      expect(line(lines, 2)).toMatch(
        new RegExp(
          `^✗ 2 car socket: another agent runs as car ${car.id}: it took the socket back within 1 s → stop the agent running as this car \\(sudo systemctl stop telerace-car`,
        ),
      );
      expect(code).toBe(1);
    } finally {
      agent.kill('SIGTERM');
      await once(agent, 'exit');
    }
  }, 60_000);

  it('names a TLS failure plainly (a self-signed certificate)', async () => {
    const key = join(dataDir, 'key.pem');
    const cert = join(dataDir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const https = createHttpsServer(
      { key: readFileSync(key), cert: readFileSync(cert) },
      (_request, response) => {
        response.end('{"ready":true}');
      },
    );
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = https.address() as { port: number };
      const { code, lines } = await doctor(
        ['--server', `https://127.0.0.1:${port}`, '--car', String(car.id), '--camera', 'none'],
        car.secret,
      );
      expect(line(lines, 1)).toBe(
        "✗ 1 server reachable: TLS refused by the car: its certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT) → fix the server's certificate (a full chain for this name, e.g. Let's Encrypt), and check the car's date",
      );
      expect(code).toBe(1);
    } finally {
      https.close();
    }
  }, 60_000);
});
