/**
 * The RotorHazard adapter against a timer played by a local Socket.IO server: it asks for the
 * current heat, its pass records become passes of the mapped cars, sync names renames the pilots,
 * and a counter that is not connected refuses to sync.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_KEYS } from '@telerace/protocol';
import { Server, type Socket } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain-error.js';
import { quietLogger } from '../../../test/quiet-logger.js';
import type { LapCounter } from '../lap-counter.js';
import { LapCounterIds } from '../lap-counter-ids.js';
import { createLapCounter } from './index.js';
import { PassCollector } from './pass-collector.js';

/** Who sits where in the timer's current heat: nodes 0 and 1 have pilots 3 and 7, node 2 nobody. */
const CURRENT_HEAT = {
  current_heat: 1,
  heatNodes: {
    0: { pilot_id: 3, callsign: 'Callsign 3' },
    1: { pilot_id: 7, callsign: 'Callsign 7' },
    2: { pilot_id: 0, callsign: null },
  },
};

class FakeRotorHazard {
  readonly http = createServer();
  readonly io = new Server(this.http);
  readonly altered: unknown[] = [];
  #client: Socket | null = null;
  #heatSent: Promise<Socket>;

  constructor() {
    this.#heatSent = new Promise((resolve) => {
      this.io.on('connection', (socket) => {
        this.#client = socket;
        // As RotorHazard answers a page's load_data: the heat goes back to the asker.
        socket.on('load_data', (data: { load_types?: string[] }) => {
          if (data.load_types?.includes('current_heat')) {
            socket.emit('current_heat', CURRENT_HEAT);
            resolve(socket);
          }
        });
        socket.on('alter_pilot', (data: unknown) => this.altered.push(data));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  /** Resolves once a client connected and was sent the current heat. */
  heatSent(): Promise<Socket> {
    return this.#heatSent;
  }

  passRecord(node: number, timestamp: number): void {
    this.#client?.emit('pass_record', { node, frequency: 5658, timestamp });
  }

  async close(): Promise<void> {
    await this.io.close();
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function startCounter(url: string, cars: LapCounterIds, now = () => Date.now()) {
  const counter: LapCounter = createLapCounter(
    { lapCounter: 'rotorhazard', zroundUrl: null, rotorhazardUrl: url },
    { log: quietLogger(), cars, now },
  );
  const passes = new PassCollector();
  counter.start(passes.push);
  cleanups.push(() => counter.stop());
  return { counter, passes };
}

describe('RotorHazard lap counter', () => {
  it('turns pass records into passes of the cars mapped by pilot or by node', async () => {
    const timer = new FakeRotorHazard();
    const url = await timer.listen();
    cleanups.push(() => timer.close());
    const cars = new LapCounterIds({ db: null });
    cars.set(1, '3');
    cars.set(2, 'node:2');
    const now = 5_000_000;
    const { counter, passes } = startCounter(url, cars, () => now);

    await timer.heatSent();
    await expect.poll(() => counter.isConnected()).toBe(true);
    timer.passRecord(0, 4_990_000); // pilot 3 → car 1
    timer.passRecord(1, 4_991_000); // pilot 7: no car
    timer.passRecord(2, 4_992_000); // node 2 → car 2
    timer.passRecord(0, 5_600_000); // the timer's clock is ahead: not later than we heard it

    expect(await passes.waitFor(3)).toEqual([
      { carId: 1, at: 4_990_000 },
      { carId: 2, at: 4_992_000 },
      { carId: 1, at: 5_000_000 },
    ]);
  });

  it('pushes the drivers’ names to their pilots and says how many it named', async () => {
    const timer = new FakeRotorHazard();
    const url = await timer.listen();
    cleanups.push(() => timer.close());
    const cars = new LapCounterIds({ db: null });
    cars.set(2, 'node:1');
    const { counter, passes } = startCounter(url, cars);
    await timer.heatSent();
    // A pass of node 1 arrives after the heat on the same socket: once it is here, so is the seating.
    timer.passRecord(1, Date.now());
    await passes.waitFor(1);

    const synced = await counter.syncNames([
      { carId: 1, lapCounterId: '3', name: 'Alice' },
      { carId: 2, lapCounterId: 'node:1', name: 'Bob' },
      { carId: 3, lapCounterId: 'node:2', name: 'Nobody seated' },
      { carId: 4, lapCounterId: null, name: 'Unmapped' },
    ]);

    expect(synced).toBe(2);
    await expect
      .poll(() => timer.altered)
      .toEqual([
        { pilot_id: 3, callsign: 'Alice', name: 'Alice' },
        { pilot_id: 7, callsign: 'Bob', name: 'Bob' },
      ]);
  });

  it('refuses to sync names while not connected', async () => {
    const timer = new FakeRotorHazard();
    const url = await timer.listen();
    await timer.close();
    const { counter } = startCounter(url, new LapCounterIds({ db: null }));

    expect(counter.isConnected()).toBe(false);
    const error = await counter.syncNames([{ carId: 1, lapCounterId: '3', name: 'Alice' }]).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'conflict', errorKey: ERROR_KEYS.lapCounterNotConnected });
  });
});
