import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CarNetns, createCarNetns, netnsUnavailable, readUplink } from './car-netns.js';

/** `nft -j list table netdev telerace` as nftables 1.0.6 prints it, 2 % loss on, trimmed. */
const NFT = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.6', json_schema_version: 1 } },
    { table: { family: 'netdev', name: 'telerace', handle: 1 } },
    { chain: { family: 'netdev', table: 'telerace', name: 'sent_out', hook: 'egress', prio: -20 } },
    {
      rule: {
        family: 'netdev',
        table: 'telerace',
        chain: 'sent_out',
        handle: 7,
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip', field: 'protocol' } }, right: 'udp' } },
          { counter: { packets: 400, bytes: 480_000 } },
        ],
      },
    },
    {
      rule: {
        family: 'netdev',
        table: 'telerace',
        chain: 'loss_out',
        handle: 9,
        expr: [
          {
            match: { op: '<', left: { numgen: { mode: 'random', mod: 1000, offset: 0 } }, right: 20 },
          },
          { drop: null },
        ],
      },
    },
    {
      rule: {
        family: 'netdev',
        table: 'telerace',
        chain: 'passed_out',
        handle: 8,
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip', field: 'protocol' } }, right: 'udp' } },
          { counter: { packets: 359, bytes: 430_800 } },
        ],
      },
    },
  ],
});

/** `tc -s -j qdisc show dev <car's end>` with the cap on (iproute2 6.1). */
const TC = JSON.stringify([
  {
    kind: 'tbf',
    handle: '1:',
    dev: 'trc11791c',
    root: true,
    options: { rate: 37_500, burst: 32_767, lat: 300_000 },
    bytes: 50_442,
    packets: 43,
    drops: 282,
    overlimits: 359,
    requeues: 0,
    backlog: 42_000,
    qlen: 35,
  },
]);

describe('readUplink', () => {
  it("reads what the car sent, what the loss took, and the tbf queue's drops and backlog", () => {
    expect(readUplink(NFT, TC)).toEqual({
      sentPackets: 400,
      sentBytes: 480_000,
      lostPackets: 41,
      queueDropped: 282,
      queuedBytes: 42_000,
    });
  });

  it('reads no queue without a cap (the device keeps its default qdisc)', () => {
    const noqueue = JSON.stringify([{ kind: 'noqueue', handle: '0:', drops: 0, backlog: 0 }]);
    expect(readUplink(NFT, noqueue)).toMatchObject({ queueDropped: 0, queuedBytes: 0 });
  });

  it('refuses a table without its counters', () => {
    expect(() => readUplink(JSON.stringify({ nftables: [] }), TC)).toThrow(/no counter in chain sent_out/);
  });
});

/**
 * In the namespace: sends `count` datagrams of 1158 bytes (1200 with the headers) to `host`:`port`
 * at once, then prints the first answer's sender (or `none` after a second).
 */
const SENDER = `
const [host, port, count] = process.argv.slice(1);
const socket = require('node:dgram').createSocket('udp4');
const timer = setTimeout(() => { console.log('none'); process.exit(0); }, 1000);
socket.on('message', (_, from) => { console.log(from.address + ':' + from.port); clearTimeout(timer); process.exit(0); });
for (let i = 0; i < Number(count); i++) socket.send(Buffer.alloc(1158), Number(port), host);
`;

describe.skipIf(netnsUnavailable() !== null)('createCarNetns (root)', () => {
  let netns: CarNetns | undefined;
  afterEach(() => {
    netns?.close();
    netns = undefined;
  });

  it("caps the car's uplink in the kernel, and its UDP reaches a redirected port whose answers come from the port it sent to", async () => {
    netns = createCarNetns();
    const ns = netns;
    const [low, high] = [48_300, 48_301];
    const offset = -30_000;
    ns.redirectUdp([low, high], offset);
    const received: number[] = [];
    const proxy = createSocket('udp4');
    proxy.on('message', (message, from) => {
      received.push(message.length);
      if (received.length === 1) proxy.send('answer', from.port, from.address);
    });
    await new Promise<void>((resolve) => proxy.bind(high + offset, ns.hostIp, resolve));
    try {
      ns.setUplinkKbps(300);
      const child = ns.spawn(process.execPath, ['-e', SENDER, ns.hostIp, String(high), '200'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let answeredBy = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        answeredBy += chunk.toString();
      });
      await new Promise((resolve) => child.once('exit', resolve));
      expect(answeredBy.trim()).toBe(`${ns.hostIp}:${high}`);
      // The 32 kB burst (27 datagrams) and what the queue holds (300 ms at 300 kbit/s + the burst)
      // pass, the rest drops.
      const uplink = await ns.uplink();
      expect(uplink.sentPackets).toBe(200);
      expect(uplink.lostPackets).toBe(0);
      expect(uplink.queueDropped).toBeGreaterThan(100);
      await vi.waitFor(() => expect(received.length).toBe(200 - uplink.queueDropped), { timeout: 5_000 });
      expect(received.every((bytes) => bytes === 1158)).toBe(true);
    } finally {
      proxy.close();
    }
  });
});
