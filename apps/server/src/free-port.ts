/**
 * A TCP port free on 127.0.0.1 right now: the OS picks one, the listener is closed and the port is
 * handed on (the Janus the server runs itself; tests that start a real server).
 */
import { once } from 'node:events';
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
