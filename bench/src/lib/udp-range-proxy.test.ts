import { createSocket, type Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { summarize } from './stats.js';
import { ImpairedLink, type PortRange, startUdpRangeProxy, type UdpRangeProxy } from './udp-range-proxy.js';

const LISTEN = '127.0.0.2';
const TARGET = '127.0.0.1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const bound = (port: number, host: string) =>
  new Promise<Socket | null>((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(null));
    socket.bind(port, host, () => resolve(socket));
  });

const closeAll = (sockets: Socket[]) =>
  Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));

/**
 * `count` consecutive ports from 48200 up, free on the proxy's address, with the target's echo
 * sockets bound on them: each answers `echo:<what it got>` to its sender.
 */
async function echoRange(count: number): Promise<{ ports: PortRange; echoes: Socket[] }> {
  for (let low = 48_200; low < 49_000; low += count) {
    const echoes: Socket[] = [];
    for (let port = low; port < low + count; port++) {
      const socket = await bound(port, TARGET);
      const free = await bound(port, LISTEN);
      if (free) await closeAll([free]);
      if (!socket || !free) {
        await closeAll(socket ? [...echoes, socket] : echoes);
        echoes.length = 0;
        break;
      }
      socket.on('message', (message, from) => socket.send(`echo:${message}`, from.port, from.address));
      echoes.push(socket);
    }
    if (echoes.length === count) return { ports: [low, low + count - 1], echoes };
  }
  throw new Error('no free port range from 48200');
}

/** A sender on its own socket: what it sends to the proxy's `port`, and the replies it gets (with their arrival time). */
async function sender() {
  const socket = (await bound(0, TARGET)) as Socket;
  const replies: { text: string; at: number }[] = [];
  socket.on('message', (message) => replies.push({ text: message.toString(), at: performance.now() }));
  return {
    socket,
    replies,
    send: (port: number, text: string) => socket.send(text, port, LISTEN),
  };
}

describe('ImpairedLink', () => {
  it('loses packets at the given rate, the same ones for the same seed', () => {
    const run = (seed: number) => {
      const link = new ImpairedLink({ loss: 0.05 }, seed);
      const delivered: number[] = [];
      for (let i = 0; i < 20_000; i++) link.push(100, () => delivered.push(i));
      return { delivered, counters: link.counters };
    };
    const first = run(7);
    expect(first.counters.lost / 20_000).toBeGreaterThan(0.045);
    expect(first.counters.lost / 20_000).toBeLessThan(0.055);
    expect(first.counters.in).toBe(20_000);
    expect(first.counters.out + first.counters.lost).toBe(20_000);
    expect(run(7).delivered).toEqual(first.delivered);
    expect(run(8).delivered).not.toEqual(first.delivered);
  });

  it('delays each packet by the base delay plus jitter, never reordering', async () => {
    const link = new ImpairedLink({ oneWayMs: 30, jitterMs: 20 });
    const arrivals: { i: number; delay: number }[] = [];
    for (let i = 0; i < 200; i++) {
      const sent = performance.now();
      link.push(100, () => arrivals.push({ i, delay: performance.now() - sent }));
      if (i % 10 === 9) await sleep(2);
    }
    await vi.waitFor(() => expect(arrivals).toHaveLength(200), { timeout: 5_000, interval: 20 });
    expect(arrivals.map((a) => a.i)).toEqual([...Array(200).keys()]);
    for (const { delay } of arrivals) expect(delay).toBeGreaterThanOrEqual(29);
    // Base + jitter is at most 50 ms; the rest is a busy machine's timers.
    expect(summarize(arrivals.map((a) => a.delay)).p50).toBeLessThan(100);
    link.close();
  });

  it('limits the rate like tbf: the bucket passes at once, the FIFO holds rate × latency + burst, the rest drops', async () => {
    // 400 kbit/s = 50 bytes/ms; bucket 4,096 bytes; FIFO 50 × 100 + 4,096 = 9,096 bytes.
    const link = new ImpairedLink({ rateKbps: 400, burstBytes: 4096, latencyMs: 100 });
    const delivered: number[] = [];
    const start = performance.now();
    // 972 + 28 = 1,000 bytes on the wire each.
    for (let i = 0; i < 60; i++) link.push(972, () => delivered.push(performance.now() - start));
    expect(delivered).toHaveLength(4);
    expect(link.queuedBytes).toBe(9_000);
    expect(link.counters).toMatchObject({ in: 60, out: 4, queueDropped: 47 });
    await vi.waitFor(() => expect(delivered).toHaveLength(13), { timeout: 5_000, interval: 20 });
    // The k-th queued packet waits for k × 1,000 bytes less the 96 left in the bucket, at 50 bytes/ms.
    for (const [k, at] of delivered.slice(4).entries())
      expect(at).toBeGreaterThanOrEqual(((k + 1) * 1_000 - 96) / 50 - 1);
    link.close();
  });

  it('holds the rate over a second of traffic sent faster', async () => {
    const link = new ImpairedLink({ rateKbps: 400, burstBytes: 4096, latencyMs: 100 });
    const delivered: number[] = [];
    const start = performance.now();
    // About 3 Mbit/s offered for 1 s.
    while (performance.now() - start < 1_000) {
      for (let i = 0; i < 4; i++) link.push(972, () => delivered.push(performance.now() - start));
      await sleep(10);
    }
    const sentFor = performance.now() - start;
    // What left while sending: the bucket's 4 packets, then one per 20 ms.
    const expected = 4 + sentFor / 20;
    const during = delivered.filter((at) => at <= sentFor).length;
    expect(during).toBeGreaterThan(expected * 0.8);
    expect(during).toBeLessThan(expected * 1.1);
    expect(link.counters.queueDropped).toBeGreaterThan(link.counters.out);
    link.close();
  });

  it('lets the queue through at once when the limit is lifted, and takes a new one at run time', async () => {
    // 8 kbit/s = 1 byte/ms: the 8 queued packets would take 8 s.
    const link = new ImpairedLink({ rateKbps: 8, burstBytes: 2000, latencyMs: 10_000 });
    let out = 0;
    for (let i = 0; i < 10; i++) link.push(972, () => out++);
    expect(out).toBe(2);
    expect(link.queuedBytes).toBe(8000);
    link.setRateKbps(null);
    expect(out).toBe(10);
    // 1,000 bytes/ms: 10 more packets within 10 ms (the old rate would take 10 s).
    link.setRateKbps(8000);
    for (let i = 0; i < 10; i++) link.push(972, () => out++);
    await vi.waitFor(() => expect(out).toBe(20), { timeout: 2_000, interval: 5 });
    link.close();
  });
});

describe('startUdpRangeProxy', () => {
  let proxy: UdpRangeProxy | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await closeAll(sockets.splice(0));
  });

  it('forwards each port to the same port on the target and routes the replies back to each sender', async () => {
    const { ports, echoes } = await echoRange(3);
    sockets.push(...echoes);
    proxy = await startUdpRangeProxy({
      listenHost: LISTEN,
      targetHost: TARGET,
      ports,
      link: { oneWayMs: 20 },
    });
    const a = await sender();
    const b = await sender();
    sockets.push(a.socket, b.socket);
    const sentAt = performance.now();
    a.send(ports[0], 'a0');
    a.send(ports[1], 'a2');
    b.send(ports[0], 'b0');
    await vi.waitFor(() => expect(a.replies.length + b.replies.length).toBe(3), {
      timeout: 5_000,
      interval: 10,
    });
    expect(a.replies.map((r) => r.text).sort()).toEqual(['echo:a0', 'echo:a2']);
    expect(b.replies.map((r) => r.text)).toEqual(['echo:b0']);
    // 20 ms each way.
    for (const reply of [...a.replies, ...b.replies]) expect(reply.at - sentAt).toBeGreaterThanOrEqual(39);
    expect(proxy.mappings).toBe(3);
    expect(proxy.up.counters).toMatchObject({ in: 3, out: 3 });
    expect(proxy.down.counters).toMatchObject({ in: 3, out: 3 });
  });

  it('impairs each direction on its own, changed at run time', async () => {
    const { ports, echoes } = await echoRange(1);
    sockets.push(...echoes);
    proxy = await startUdpRangeProxy({ listenHost: LISTEN, targetHost: TARGET, ports });
    const a = await sender();
    sockets.push(a.socket);
    proxy.setLoss(1, 'down');
    for (let i = 0; i < 20; i++) a.send(ports[0], `${i}`);
    await vi.waitFor(() => expect(proxy?.down.counters.in).toBe(20), { timeout: 5_000, interval: 10 });
    expect(a.replies).toEqual([]);
    expect(proxy.up.counters).toMatchObject({ in: 20, out: 20, lost: 0 });
    expect(proxy.down.counters).toMatchObject({ in: 20, out: 0, lost: 20 });
    proxy.setLoss(0);
    a.send(ports[0], 'again');
    await vi.waitFor(() => expect(a.replies.map((r) => r.text)).toEqual(['echo:again']), { timeout: 5_000 });
  });

  it('listens on the target ports plus an offset, forwarding each to its own target port', async () => {
    const { ports, echoes } = await echoRange(2);
    sockets.push(...echoes);
    const offset = -10_000;
    proxy = await startUdpRangeProxy({
      listenHost: LISTEN,
      targetHost: TARGET,
      ports,
      listenPortOffset: offset,
    });
    const a = await sender();
    sockets.push(a.socket);
    a.send(ports[1] + offset, 'second');
    await vi.waitFor(() => expect(a.replies.map((r) => r.text)).toEqual(['echo:second']), { timeout: 5_000 });
    // Nothing listens on the target's own ports on the proxy's address.
    const own = (await bound(ports[0], LISTEN)) as Socket;
    expect(own).not.toBeNull();
    sockets.push(own);
  });

  it('refuses a range it cannot bind', async () => {
    const { ports, echoes } = await echoRange(1);
    const taken = (await bound(ports[0], LISTEN)) as Socket;
    sockets.push(...echoes, taken);
    await expect(startUdpRangeProxy({ listenHost: LISTEN, targetHost: TARGET, ports })).rejects.toThrow(
      /cannot bind/,
    );
  });
});
