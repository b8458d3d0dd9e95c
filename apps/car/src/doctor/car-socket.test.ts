/**
 * Check 2's refusals a real server cannot be made to give cheaply: a server of another car
 * protocol range (`incompatible`, both ways), and the agent's service active on this car.
 * The stand-in speaks the car socket's real messages over a real HTTP server and WebSocket.
 */
import { createServer, type Server } from 'node:http';
import type { IncompatibleReason } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { resolveSettings } from '../settings.js';
import { checkCarSocket } from './car-socket.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server that answers every car's hello with `incompatible {reason}`; its base URL. */
async function incompatibleServer(
  reason: IncompatibleReason,
  supported: { min: number; max: number },
): Promise<string> {
  server = createServer((_request, response) => response.end());
  const wss = new WebSocketServer({ server, path: '/rcsocket' });
  wss.on('connection', (socket) => {
    socket.on('message', () => {
      socket.send(JSON.stringify({ type: 'incompatible', reason, supported }));
      socket.close(4002, 'incompatible');
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

const settingsFor = (base: string) =>
  resolveSettings({ server: base, car: '3', secret: 's', camera: 'none' });
const noService = async () => false;

describe('car socket check', () => {
  it('says to update the car agent when the server finds it too old', async () => {
    const { result, socket } = await checkCarSocket(
      settingsFor(await incompatibleServer('client_too_old', { min: 2, max: 3 })),
      noService,
    );
    expect(socket).toBeUndefined();
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(
      'this agent is too old for the server (car protocol 1, the server accepts 2–3)',
    );
    expect(result.fix).toContain('update the car agent');
  });

  it('says to update the server when the server is the older one', async () => {
    const { result } = await checkCarSocket(
      settingsFor(await incompatibleServer('server_too_old', { min: 0, max: 0 })),
      noService,
    );
    expect(result.detail).toBe(
      'the server is older than this agent (it accepts car protocol 0, this agent speaks 1)',
    );
    expect(result.fix).toBe('update the server');
  });

  it('does not connect while the agent’s service runs on this car', async () => {
    let connected = false;
    server = createServer();
    new WebSocketServer({ server }).on('connection', () => {
      connected = true;
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const { result } = await checkCarSocket(settingsFor(`http://127.0.0.1:${port}`), async () => true);
    expect(result.detail).toBe(
      "the telerace-car service runs on this car: the doctor's socket would replace the agent's",
    );
    expect(result.fix).toBe(
      'stop it first (sudo systemctl stop telerace-car), run the doctor, then start it again',
    );
    expect(connected).toBe(false);
  });
});
