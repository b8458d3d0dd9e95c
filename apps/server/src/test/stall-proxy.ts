/**
 * Test support: a TCP proxy that can stall — stop forwarding in both directions without closing
 * anything, as a Wi-Fi link or a 4G cell that stops passing packets does (this kernel has no
 * netem). Both ends keep their connection open and see silence; `resume` lets everything held
 * through, in order. Or cut: every connection through it closed and new ones refused, as for a
 * server whose link went down, until `resume`.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface StallProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  stall(): void;
  cut(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallProxy(targetPort: number): Promise<StallProxy> {
  let stalled = false;
  let cut = false;
  /** Each direction of each connection: where it writes, and what it holds while stalled. */
  const directions = new Set<{ to: Socket; held: (Buffer | 'end')[] }>();
  const sockets = new Set<Socket>();
  const deliver = (to: Socket, item: Buffer | 'end') => (item === 'end' ? to.destroy() : to.write(item));
  const forward = (from: Socket, to: Socket) => {
    const direction = { to, held: [] as (Buffer | 'end')[] };
    directions.add(direction);
    const pass = (item: Buffer | 'end') => (stalled ? direction.held.push(item) : deliver(to, item));
    from.on('data', pass);
    // A close is news too: while stalled it waits behind the data, as a FIN would.
    from.on('close', () => pass('end'));
  };
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    stall() {
      stalled = true;
    },
    cut() {
      cut = true;
      directions.clear();
      for (const socket of sockets) socket.destroy();
    },
    resume() {
      cut = false;
      stalled = false;
      for (const direction of directions)
        for (const item of direction.held.splice(0)) deliver(direction.to, item);
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
