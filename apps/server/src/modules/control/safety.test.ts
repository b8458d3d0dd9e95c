/**
 * The car's last line of safety, tested by killing processes: a real server process and a real
 * car-agent process, a driver holding full throttle, then the server is SIGKILLed. The agent must
 * put the car in neutral by itself. The time it took is printed (measured, not asserted).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestEnvironment, type TestEnvironment } from '../../test/app.js';
import { freePort, startServer, waitForStatus } from '../../test/process.js';
import { defaultAgentCommand } from '../cars/sim-cars.js';

const ADMIN = { email: 'safety-admin@telerace.test', password: 'safety-admin-Passw0rd!' };

async function post<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(`${base}/api${path}`, {
    method: 'POST',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Resolves with the time a line matching `pattern` appears on the process's stdout. */
function lineAppears(child: ChildProcess, pattern: RegExp): Promise<number> {
  return new Promise((resolve) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      if (pattern.test(buffer)) {
        child.stdout?.off('data', onData);
        resolve(performance.now());
      }
    };
    child.stdout?.on('data', onData);
  });
}

describe('safety when the server dies', () => {
  let environment: TestEnvironment | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    await environment?.dispose();
    environment = undefined;
  });

  it('puts a driven car in neutral when the server process is killed', async () => {
    environment = await createTestEnvironment();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = startServer({
      ...environment.env,
      PORT: String(port),
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    children.push(server);
    await waitForStatus(`${base}/api/ready`, 200, 60_000);

    const { accessToken } = await post<{ accessToken: string }>(base, '/login', {
      ...ADMIN,
      recaptchaToken: '',
    });
    const { car, secret } = await post<{ car: { id: number }; secret: string }>(
      base,
      '/admin/cars',
      { name: 'Safety car', image_url: null },
      accessToken,
    );

    const agentCommand = defaultAgentCommand();
    const agent = spawn(
      agentCommand.command,
      [...agentCommand.args, '--server', base, '--car', String(car.id), '--drive', 'sim'],
      { env: { PATH: process.env.PATH ?? '', CAR_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);

    const { code } = await post<{ code: string }>(
      base,
      `/admin/cars/${car.id}/generate_code`,
      undefined,
      accessToken,
    );
    const { controlToken } = await post<{ controlToken: string }>(
      base,
      `/cars/${car.id}/connect`,
      { code },
      accessToken,
    );
    const controller = new WebSocket(
      `ws://127.0.0.1:${port}/rcsocket?type=controller&car=${car.id}&control_token=${controlToken}&token=${accessToken}`,
      { headers: { origin: base }, perMessageDeflate: false },
    );
    await once(controller, 'open');
    // Full throttle until the car reports that it really moves.
    const moving = new Promise<void>((resolve) => {
      controller.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; telemetry?: { speed?: number } };
        if (message.type === 'telemetry' && (message.telemetry?.speed ?? 0) > 0.5) resolve();
      });
    });
    controller.send(JSON.stringify({ type: 'drive', throttle: 1, steer: 0 }));
    await moving;

    const neutral = lineAppears(agent, /neutral \(/);
    const killedAt = performance.now();
    server.kill('SIGKILL');
    const neutralAt = await neutral;
    controller.terminate();

    expect(agent.exitCode).toBeNull(); // the agent survives the server and will reconnect
    console.info(`server SIGKILL → car neutral: ${(neutralAt - killedAt).toFixed(1)} ms`);
  }, 90_000);
});
