/**
 * The `rotorhazard` lap counter: a RotorHazard timer (https://github.com/RotorHazard/RotorHazard)
 * reached over Socket.IO at ROTORHAZARD_URL, as its own cluster "primary" timers reach it.
 *
 * What we use of its events (server.py / RHUI.py):
 * - `pass_record {node, frequency, timestamp}`: a pass at receiver node `node` (0-based seat),
 *   `timestamp` in epoch ms of the timer's clock. RotorHazard sends it to connected clients
 *   through its cluster send queue; we do not acknowledge (`cluster_message_ack`), so it sends
 *   each pass once instead of retrying.
 * - `current_heat {heatNodes: {<node>: {pilot_id, callsign}}}`: who sits at which node; asked for
 *   on connect with `load_data {load_types: ['current_heat']}` and pushed on every heat change.
 * - `alter_pilot {pilot_id, callsign, name}` (we send it): renames a pilot.
 *
 * A car's lap counter id is either a RotorHazard pilot id (`3`): its passes are those of the node
 * the pilot is seated at in the current heat, and sync names renames that pilot; or a node
 * (`node:0`): passes of that node whatever the heat says, and sync names renames the pilot seated
 * there.
 */
import { ERROR_KEYS, RECONNECT_BACKOFF } from '@telerace/protocol';
import { io, type Socket } from 'socket.io-client';
import { DomainError } from '../../../domain-error.js';
import type { CarByLapCounterId, LapCounter, LapCounterDriver, LapPass } from '../lap-counter.js';
import type { LapCounterLog } from './zround-lap-counter.js';

export interface RotorHazardLapCounterOptions {
  /** http(s)://host:port of the timer. */
  url: string;
  cars: CarByLapCounterId;
  log: LapCounterLog;
  now?: () => number;
}

const NODE_ID = /^node:(\d{1,2})$/;
const PILOT_ID = /^\d{1,9}$/;

export const lapCounterNotConnected = (): DomainError =>
  new DomainError('conflict', 'The lap counter is not connected.', ERROR_KEYS.lapCounterNotConnected);

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

function asInteger(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export class RotorHazardLapCounter implements LapCounter {
  readonly kind = 'rotorhazard' as const;
  readonly #url: string;
  readonly #cars: CarByLapCounterId;
  readonly #log: LapCounterLog;
  readonly #now: () => number;
  /** node index → pilot id, from the last `current_heat`. */
  #seats = new Map<number, number>();
  #socket: Socket | null = null;
  #onPass: (pass: LapPass) => void = () => {};

  constructor(options: RotorHazardLapCounterOptions) {
    this.#url = options.url;
    this.#cars = options.cars;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
  }

  start(onPass: (pass: LapPass) => void): void {
    if (this.#socket) return;
    this.#onPass = onPass;
    const socket = io(this.#url, {
      reconnection: true,
      reconnectionDelay: RECONNECT_BACKOFF.initialMs,
      reconnectionDelayMax: RECONNECT_BACKOFF.maxMs,
      randomizationFactor: 0,
      timeout: 5_000,
    });
    this.#socket = socket;
    socket.on('connect', () => {
      this.#log.info({ url: this.#url }, 'RotorHazard connected');
      socket.emit('load_data', { load_types: ['current_heat'] });
    });
    socket.on('disconnect', (reason) => this.#log.warn({ reason }, 'RotorHazard disconnected'));
    socket.on('connect_error', (error) => this.#log.debug({ err: error }, 'RotorHazard connection error'));
    socket.on('current_heat', (payload: unknown) => this.#onHeat(payload));
    socket.on('pass_record', (payload: unknown) => this.#onPassRecord(payload));
  }

  stop(): void {
    this.#socket?.disconnect();
    this.#socket?.removeAllListeners();
    this.#socket = null;
    this.#seats = new Map();
  }

  isConnected(): boolean {
    return this.#socket?.connected ?? false;
  }

  /** Renames the drivers' pilots on the timer; says how many it named. */
  async syncNames(drivers: readonly LapCounterDriver[]): Promise<number> {
    const socket = this.#socket;
    if (!socket?.connected) throw lapCounterNotConnected();
    let named = 0;
    for (const driver of drivers) {
      const pilotId = driver.lapCounterId === null ? null : this.#pilotOf(driver.lapCounterId);
      if (pilotId === null) continue;
      socket.emit('alter_pilot', { pilot_id: pilotId, callsign: driver.name, name: driver.name });
      named += 1;
    }
    return named;
  }

  #pilotOf(lapCounterId: string): number | null {
    if (PILOT_ID.test(lapCounterId)) return Number(lapCounterId);
    const node = NODE_ID.exec(lapCounterId);
    return node ? (this.#seats.get(Number(node[1])) ?? null) : null;
  }

  #onHeat(payload: unknown): void {
    const nodes = asRecord(asRecord(payload)?.heatNodes);
    if (!nodes) return;
    const seats = new Map<number, number>();
    for (const [index, seat] of Object.entries(nodes)) {
      const node = asInteger(index);
      const pilot = asInteger(asRecord(seat)?.pilot_id);
      // RotorHazard's "no pilot" is 0 or null.
      if (node !== null && pilot !== null && pilot > 0) seats.set(node, pilot);
    }
    this.#seats = seats;
  }

  #onPassRecord(payload: unknown): void {
    const record = asRecord(payload);
    const node = asInteger(record?.node);
    if (node === null) {
      this.#log.debug({ payload }, 'RotorHazard pass_record without a node skipped');
      return;
    }
    const pilot = this.#seats.get(node);
    const carId =
      this.#cars.carFor(`node:${node}`) ?? (pilot === undefined ? null : this.#cars.carFor(String(pilot)));
    if (carId === null) {
      this.#log.debug({ node, pilot }, 'RotorHazard pass of a node/pilot no car has');
      return;
    }
    // The timer's clock may be ahead of ours; a pass is never later than when we heard of it.
    const now = this.#now();
    const timestamp = typeof record?.timestamp === 'number' ? record.timestamp : Number.NaN;
    this.#onPass({ carId, at: Number.isFinite(timestamp) ? Math.min(Math.round(timestamp), now) : now });
  }
}
