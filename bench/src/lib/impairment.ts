/**
 * A mobile link in user space (this kernel has no netem): proxies that delay, jitter and lose
 * what passes through them, per direction, from a seeded random source so that two paths in one
 * run meet the same luck.
 *
 * - UDP (a DataChannel's path): each datagram is lost with probability `loss`, or delivered after
 *   `oneWayMs` plus up to `jitterMs`, never before the one sent before it (a queue, as on a
 *   cellular link: independent delays reorder back-to-back packets, which real links rarely do
 *   and werift's DTLS handshake does not survive).
 * - TCP (a WebSocket's path): a proxy sees bytes, not segments, so each chunk read is taken as one
 *   segment (a drive message is one small write). A lost segment is retransmitted as Linux does:
 *   after three later segments have produced duplicate ACKs (fast retransmit: the third later
 *   segment's arrival plus a round trip) or after the retransmission timeout (at least 200 ms),
 *   whichever is first; and TCP delivers in order, so every later segment waits behind it
 *   (head-of-line blocking). That wait is what this bench measures against the DataChannel.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { createConnection, createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Impairment {
  /** Base delay each way (RTT = 2 × oneWayMs). */
  oneWayMs: number;
  /** Up to this much more delay per packet, uniformly drawn. */
  jitterMs: number;
  /** Probability that a packet (or segment) is lost, each direction. */
  loss: number;
}

/** Linux's minimum retransmission timeout. */
const MIN_RTO_MS = 200;
/** Duplicate ACKs that trigger a fast retransmit. */
const DUP_ACKS = 3;

/** mulberry32: a small seeded generator, so runs are comparable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface ImpairedProxy {
  port: number;
  close(): Promise<void>;
}

export interface ImpairedUdpProxy extends ImpairedProxy {
  /** Datagrams that came to cross the link so far, either way, lost ones included. */
  readonly carried: number;
}

/** One direction of a TCP connection: segments delivered in order, lost ones retransmitted. */
class TcpDirection {
  readonly #queue: { data: Buffer; at: number | null; lostAt: number; later: number }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: Socket,
    private readonly link: Impairment,
    private readonly random: () => number,
  ) {}

  push(data: Buffer): void {
    const now = performance.now();
    const { oneWayMs, jitterMs, loss } = this.link;
    const rto = Math.max(MIN_RTO_MS, 2 * oneWayMs + 4 * jitterMs);
    for (const waiting of this.#queue) {
      if (waiting.at !== null) continue;
      waiting.later += 1;
      // The third duplicate ACK reaches the sender a one-way trip after this segment arrives.
      if (waiting.later === DUP_ACKS)
        waiting.at = Math.min(waiting.lostAt + rto, now + 2 * oneWayMs) + oneWayMs;
    }
    const lost = this.random() < loss;
    const at = lost ? null : now + oneWayMs + this.random() * jitterMs;
    this.#queue.push({ data, at, lostAt: now, later: 0 });
    this.#flush();
  }

  #flush(): void {
    clearTimeout(this.#timer);
    const now = performance.now();
    for (;;) {
      const head = this.#queue[0];
      if (!head) return;
      // A lost head with too few later segments waits for its retransmission timeout.
      const at = head.at ?? head.lostAt + Math.max(MIN_RTO_MS, 2 * this.link.oneWayMs) + this.link.oneWayMs;
      if (at > now) {
        this.#timer = setTimeout(() => this.#flush(), at - now);
        return;
      }
      this.#queue.shift();
      if (!this.to.destroyed) this.to.write(head.data);
    }
  }

  close(): void {
    clearTimeout(this.#timer);
  }
}

/** A TCP proxy to 127.0.0.1:`targetPort` over an impaired link. */
export async function startImpairedTcpProxy(
  targetPort: number,
  link: Impairment,
  seed = 1,
): Promise<ImpairedProxy> {
  const random = seededRandom(seed);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const out = new TcpDirection(upstream, link, random);
    const back = new TcpDirection(client, link, random);
    client.on('data', (data: Buffer) => out.push(data));
    upstream.on('data', (data: Buffer) => back.push(data));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        out.close();
        back.close();
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A UDP proxy to `target` over an impaired link: what arrives on its port from a peer goes to
 * the target, and what the target answers goes back to the last peer heard from. Each direction
 * is a queue with a variable delay (as a cellular link's), so packets keep their order.
 */
export async function startImpairedUdpProxy(
  target: { host: string; port: number },
  link: Impairment,
  seed = 1,
): Promise<ImpairedUdpProxy> {
  const random = seededRandom(seed);
  const front = createSocket('udp4');
  const back = createSocket('udp4');
  let peer: RemoteInfo | null = null;
  let carried = 0;
  const timers = new Set<NodeJS.Timeout>();
  /** Each direction is a queue: a packet never overtakes the one sent before it. */
  const direction = () => {
    let lastAt = 0;
    return (send: () => void) => {
      carried += 1;
      if (random() < link.loss) return;
      const at = Math.max(lastAt, performance.now() + link.oneWayMs + random() * link.jitterMs);
      lastAt = at;
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, at - performance.now());
      timers.add(timer);
    };
  };
  const out = direction();
  const home = direction();
  front.on('message', (message, from) => {
    peer = from;
    out(() => back.send(message, target.port, target.host));
  });
  back.on('message', (message) => {
    const to = peer;
    if (to) home(() => front.send(message, to.port, to.address));
  });
  await Promise.all([
    new Promise<void>((resolve) => front.bind(0, '127.0.0.1', resolve)),
    // On the target's own address: a socket of another address may not reach it (a server
    // bound to the machine's interface does not answer to loopback).
    new Promise<void>((resolve) => back.bind(0, target.host, resolve)),
  ]);
  return {
    port: front.address().port,
    get carried() {
      return carried;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      front.close();
      back.close();
    },
  };
}
