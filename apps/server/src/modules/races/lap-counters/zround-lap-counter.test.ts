/**
 * The ZRound adapter against a decoder played by a local TCP server: passes of mapped
 * transponders become passes of their cars, garbage is survived, and a decoder that goes away and
 * comes back is reconnected to.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { quietLogger } from '../../../test/quiet-logger.js';
import type { LapCounter } from '../lap-counter.js';
import { LapCounterIds } from '../lap-counter-ids.js';
import { createLapCounter } from './index.js';
import { PassCollector } from './pass-collector.js';

/** A decoder: accepts ZRound's connection, records what ZRound says, lets the test talk back. */
class FakeDecoder {
  readonly server = net.createServer();
  readonly sockets: net.Socket[] = [];
  received = '';
  #onConnection: (() => void)[] = [];
  #onReceived: { text: string; resolve: () => void }[] = [];

  constructor() {
    this.server.on('connection', (socket) => {
      this.sockets.push(socket);
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        this.received += chunk;
        this.#onReceived = this.#onReceived.filter((waiter) => {
          if (!this.received.includes(waiter.text)) return true;
          waiter.resolve();
          return false;
        });
      });
      socket.on('error', () => {});
      for (const resolve of this.#onConnection.splice(0)) resolve();
    });
  }

  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve((this.server.address() as net.AddressInfo).port));
    });
  }

  /** Resolves when ZRound has connected `count` times in all. */
  connected(count: number): Promise<void> {
    if (this.sockets.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#onConnection.push(() => this.connected(count).then(resolve)));
  }

  heard(text: string): Promise<void> {
    if (this.received.includes(text)) return Promise.resolve();
    return new Promise((resolve) => this.#onReceived.push({ text, resolve }));
  }

  send(text: string): void {
    this.sockets.at(-1)?.write(text);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function start(
  port: number,
  cars: LapCounterIds,
  now: () => number,
): { counter: LapCounter; passes: PassCollector } {
  const counter = createLapCounter(
    { lapCounter: 'zround', zroundUrl: `tcp://127.0.0.1:${port}`, rotorhazardUrl: null },
    { log: quietLogger(), cars, now },
  );
  const passes = new PassCollector();
  counter.start(passes.push);
  cleanups.push(() => counter.stop());
  return { counter, passes };
}

function mappedCars(): LapCounterIds {
  const cars = new LapCounterIds({ db: null });
  cars.set(1, '0A');
  cars.set(2, '1f40');
  return cars;
}

describe('ZRound lap counter', () => {
  it('turns passes of mapped transponders into passes of their cars, at our clock', async () => {
    const decoder = new FakeDecoder();
    const port = await decoder.listen();
    cleanups.push(() => decoder.close());
    let now = 1_000_000;
    const { counter, passes } = start(port, mappedCars(), () => now);

    await decoder.connected(1);
    // ZRound's startup and race start: the decoder zeroes its clock and reports passes.
    await decoder.heard('%C&%I&');
    await expect.poll(() => counter.isConnected()).toBe(true);

    // Garbage, a malformed frame, an unmapped transponder (05) and a frame split across writes.
    // The decoder's 10 s arrive at our 1,000,000 ms: its zero was at 990,000.
    decoder.send('\r\nxx&&%Lzz&%L05,10&%L0A');
    decoder.send('002710&\r\n');
    expect(await passes.waitFor(1)).toEqual([{ carId: 1, at: 1_000_000 }]);

    // 12.5 s arriving 500 ms late: the fastest frame's offset stands.
    now = 1_003_000;
    decoder.send('%T2AF8&%L1F40,30D4&');
    expect((await passes.waitFor(2))[1]).toEqual({ carId: 2, at: 1_002_500 });

    // The decoder's time went back (it restarted): the offset is measured again.
    now = 1_010_000;
    decoder.send('%L0A,3E8&');
    expect((await passes.waitFor(3))[2]).toEqual({ carId: 1, at: 1_010_000 });
    expect(counter.kind).toBe('zround');
    await expect(counter.syncNames([{ carId: 1, lapCounterId: '0A', name: 'Alice' }])).resolves.toBe(0);
  });

  it('reconnects when the decoder goes away and comes back', async () => {
    const first = new FakeDecoder();
    const port = await first.listen();
    const { counter, passes } = start(port, mappedCars(), () => Date.now());
    await first.connected(1);
    first.send('%L0A,10&');
    await passes.waitFor(1);

    await first.close();
    await expect.poll(() => counter.isConnected()).toBe(false);

    const second = new FakeDecoder();
    await second.listen(port);
    cleanups.push(() => second.close());
    await second.connected(1);
    await second.heard('%C&%I&');
    second.send('%L1F40,20&');
    const [, pass] = await passes.waitFor(2);
    expect(pass?.carId).toBe(2);
    expect(counter.isConnected()).toBe(true);
  });

  it('keeps trying while no decoder listens, and never throws', async () => {
    // A port nobody listens on: take one and free it.
    const probe = new FakeDecoder();
    const port = await probe.listen();
    await probe.close();
    const { counter } = start(port, mappedCars(), () => Date.now());
    expect(counter.isConnected()).toBe(false);

    const late = new FakeDecoder();
    await late.listen(port);
    cleanups.push(() => late.close());
    await late.connected(1);
    await expect.poll(() => counter.isConnected()).toBe(true);
  });
});
