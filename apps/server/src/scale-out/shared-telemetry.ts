/**
 * Each car's last telemetry, shared by every instance (issue 15) for the admin's car list: the
 * relay keeps it only where the car's socket is (or where its driver is), and an admin's request
 * may land anywhere.
 *
 * The instance holding a car's socket writes its telemetry at most once per RECORD_EVERY_MS per
 * car, one key per car (`<REDIS_NAMESPACE>:telemetry:<carId>`, JSON `{...telemetry, at}`), never
 * awaited: the relay path does not wait on Redis, and a Redis that is down just skips the write
 * (the connections log their state changes). Each write renews the key's KEPT_FOR_MS, so a car
 * that went offline keeps its last telemetry (and its age) as in one process, and a deleted car's
 * key, never listed again, fades. The admin's list reads every car's key in one MGET.
 */
import { Telemetry } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { TelemetryAt, TelemetryElsewhere } from '../modules/cars/cars.presenter.js';

/** At most one write per car this often (a car sends telemetry every 200 ms). */
export const RECORD_EVERY_MS = 1_000;
/** A key nobody renewed for this long goes. */
export const KEPT_FOR_MS = 24 * 60 * 60_000;

const Stored = Telemetry.extend({ at: z.iso.datetime() });

export class SharedTelemetry implements TelemetryElsewhere {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #log: FastifyBaseLogger;
  readonly #now: () => number;
  /** When each car's telemetry was last written (this instance's writes only). */
  readonly #writtenAt = new Map<number, number>();

  constructor(deps: { redis: Redis; namespace: string; log: FastifyBaseLogger; now?: () => number }) {
    this.#redis = deps.redis;
    this.#prefix = `${deps.namespace}:telemetry:`;
    this.#log = deps.log.child({ component: 'shared-telemetry' });
    this.#now = deps.now ?? Date.now;
  }

  /** A held car's telemetry: written now unless it was within RECORD_EVERY_MS; never throws, never waits. */
  record(carId: number, telemetry: TelemetryAt): void {
    const now = this.#now();
    if (now - (this.#writtenAt.get(carId) ?? Number.NEGATIVE_INFINITY) < RECORD_EVERY_MS) return;
    if (this.#redis.status !== 'ready') return;
    this.#writtenAt.set(carId, now);
    this.#redis
      .set(this.#key(carId), JSON.stringify(telemetry), 'PX', KEPT_FOR_MS)
      .catch(() => this.#writtenAt.delete(carId));
  }

  /** The stored telemetry of these cars (one MGET); empty when Redis cannot answer now. */
  async lastOf(carIds: readonly number[]): Promise<Map<number, TelemetryAt>> {
    const found = new Map<number, TelemetryAt>();
    if (carIds.length === 0 || this.#redis.status !== 'ready') return found;
    let values: (string | null)[];
    try {
      values = await this.#redis.mget(carIds.map((carId) => this.#key(carId)));
    } catch (error) {
      this.#log.warn(
        { err: error },
        'shared telemetry unreadable: the admin sees only what this instance holds',
      );
      return found;
    }
    carIds.forEach((carId, index) => {
      const telemetry = parse(values[index] ?? null);
      if (telemetry) found.set(carId, telemetry);
    });
    return found;
  }

  #key(carId: number): string {
    return `${this.#prefix}${carId}`;
  }
}

/** A stored value, or null when it is not one (written by a version this one does not read). */
function parse(raw: string | null): TelemetryAt | null {
  if (raw === null) return null;
  try {
    const checked = Stored.safeParse(JSON.parse(raw));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}
