/**
 * A TCP port free on 127.0.0.1 right now, handed on to a process that listens on it later (the
 * Janus the server runs itself; tests that start a real server).
 *
 * It is picked below the kernel's ephemeral range (Linux: ip_local_port_range, 32768–60999 by
 * default). A port the OS picks with `listen(0)` comes from that range, which also serves every
 * outgoing connection: between the pick and the other process's `listen`, a database or WebSocket
 * client can be given the same port, and the listen fails with EADDRINUSE. Below the range only
 * another explicit pick can take it, and the pick is random.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where picks are made, below the ephemeral range; and how many random tries before the OS picks. */
const PICKED_FROM = 20_000;
const KERNEL_DEFAULT_EPHEMERAL_LOW = 32_768;
const TRIES = 50;

/** The first port of the kernel's ephemeral range (its default where it cannot be read). */
export function ephemeralRangeStart(file = '/proc/sys/net/ipv4/ip_local_port_range'): number {
  try {
    const low = Number.parseInt(readFileSync(file, 'utf8').trim().split(/\s+/)[0] ?? '', 10);
    return Number.isInteger(low) && low > 0 ? low : KERNEL_DEFAULT_EPHEMERAL_LOW;
  } catch {
    return KERNEL_DEFAULT_EPHEMERAL_LOW;
  }
}

/** Listens on the port (0: the OS picks) and closes; the port listened on, or null if it is taken. */
async function listenAndClose(port: number): Promise<number | null> {
  const server = createServer();
  const listening = new Promise<number | null>((resolve) => {
    server.once('error', () => resolve(null));
    server.once('listening', () => resolve((server.address() as { port: number }).port));
  });
  server.listen(port, '127.0.0.1');
  const picked = await listening;
  if (picked !== null) {
    server.close();
    await once(server, 'close');
  }
  return picked;
}

export async function freeLoopbackPort(): Promise<number> {
  const below = ephemeralRangeStart();
  const span = below - PICKED_FROM;
  // A machine whose ephemeral range starts low leaves no room below it: the OS picks as before.
  if (span >= 1_000) {
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      const port = await listenAndClose(PICKED_FROM + Math.floor(Math.random() * span));
      if (port !== null) return port;
    }
  }
  const port = await listenAndClose(0);
  if (port === null) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}
