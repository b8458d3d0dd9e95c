import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './test/app.js';

describe('WebSocket upgrades next to compression', () => {
  let injectWS: FastifyInstance['injectWS'] | undefined;
  const socketRoutes: FastifyPluginAsync = async (api) => {
    // @fastify/websocket is registered once by the app.
    injectWS = api.injectWS.bind(api);
    api.get('/test/echo', { websocket: true }, (socket) => {
      socket.on('message', (message: Buffer) => socket.send(`echo:${message.toString()}`));
    });
  };

  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  let port: number;
  beforeAll(async () => {
    testApp = await startTestApp({}, { apiPlugins: [socketRoutes] });
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    port = (testApp.app.server.address() as { port: number }).port;
  });
  afterAll(() => testApp.close());

  it('switch protocols over real HTTP for a client that accepts compressed bodies', async () => {
    const upgrade = request({
      host: '127.0.0.1',
      port,
      path: '/api/test/echo',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    upgrade.end();
    const [response, socket] = (await once(upgrade, 'upgrade')) as [
      { statusCode: number; headers: Record<string, string> },
      import('node:net').Socket,
    ];
    expect(response.statusCode).toBe(101);
    expect(response.headers['content-encoding']).toBeUndefined();
    socket.destroy();
  });

  it('carry messages both ways', async () => {
    if (!injectWS) throw new Error('socket routes not registered');
    // injectWS's in-memory socket has no address; a real one always does.
    const socket = await injectWS('/api/test/echo', {
      headers: { 'accept-encoding': 'gzip, br' },
      socket: { remoteAddress: '127.0.0.1' } as never,
    });
    const reply = new Promise<string>((resolve) =>
      socket.once('message', (data: Buffer) => resolve(data.toString())),
    );
    socket.send('hello');
    expect(await reply).toBe('echo:hello');
    socket.terminate();
  });
});
