/**
 * The cross-instance relay over Redis (control/relay-bridge.ts says what it guarantees). Two
 * channels per car: `relay:car:<id>`, heard by the instance holding the car's socket (drive, stop,
 * watch), and `relay:driver:<id>`, heard by instances with a controller of the car (telemetry).
 *
 * The driver's instance repeats the last drive every driveHeartbeatMs through Redis; the car's
 * instance forwards each once. `watch` (every second while a controller is open, whether it
 * drives or not) tells the car's instance that someone elsewhere wants its telemetry. On
 * `relay:presence` each instance says every PRESENCE_EVERY_MS which cars it holds.
 */
import { CONTROL_LIMITS, Telemetry } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import {
  PRESENCE_EVERY_MS,
  type RelayBridge,
  type RemoteCar,
  type ServedCarHandlers,
} from '../modules/control/relay-bridge.js';
import type { RedisChannels } from './redis-channels.js';

const WATCH_EVERY_MS = 1_000;
/** A car's instance sends telemetry this long after the last watch or drive it heard. */
const WATCH_LASTS_MS = 3_000;

const ToCar = z.discriminatedUnion('t', [
  z.object({ t: z.literal('drive'), throttle: z.number().min(-1).max(1), steer: z.number().min(-1).max(1) }),
  z.object({ t: z.literal('stop') }),
  z.object({ t: z.literal('watch') }),
]);
type ToCar = z.infer<typeof ToCar>;

const ToDriver = z.object({ t: z.literal('telemetry'), telemetry: Telemetry });

const Presence = z.object({ from: z.string(), carIds: z.array(z.number().int().positive()) });

const PRESENCE_CHANNEL = 'relay:presence';
const carChannel = (carId: number) => `relay:car:${carId}`;
const driverChannel = (carId: number) => `relay:driver:${carId}`;

export class RedisRelayBridge implements RelayBridge {
  /** Held cars with a remote driver lately: until when their telemetry is sent on. */
  readonly #watchedUntil = new Map<number, number>();
  #presenceTimer: NodeJS.Timeout | undefined;

  readonly channels: RedisChannels;
  readonly log: FastifyBaseLogger;

  constructor(deps: { channels: RedisChannels; log: FastifyBaseLogger }) {
    this.channels = deps.channels;
    this.log = deps.log;
  }

  get instanceId(): string {
    return this.channels.instanceId;
  }

  get connected(): boolean {
    return this.channels.connected;
  }

  onStateChange(listener: (connected: boolean) => void): void {
    this.channels.onStateChange(listener);
  }

  driveRemote(carId: number, onTelemetry: (telemetry: Telemetry) => void): RemoteCar {
    const send = (message: ToCar) =>
      this.channels.publish(carChannel(carId), JSON.stringify(message)) === 'sent';
    let lastDrive: { throttle: number; steer: number } | null = null;
    const heartbeat = setInterval(() => {
      if (lastDrive) send({ t: 'drive', ...lastDrive });
    }, CONTROL_LIMITS.driveHeartbeatMs);
    const watch = setInterval(() => send({ t: 'watch' }), WATCH_EVERY_MS);
    const unsubscribe = this.channels.subscribe(driverChannel(carId), (raw) => {
      const message = parse(ToDriver, raw);
      if (message) onTelemetry(message.telemetry);
    });
    send({ t: 'watch' });
    return {
      drive: (throttle, steer) => {
        lastDrive = { throttle, steer };
        return send({ t: 'drive', throttle, steer });
      },
      stop: () => {
        lastDrive = null;
        send({ t: 'stop' });
      },
      close: () => {
        lastDrive = null;
        clearInterval(heartbeat);
        clearInterval(watch);
        send({ t: 'stop' });
        unsubscribe();
      },
    };
  }

  serveCar(carId: number, handlers: ServedCarHandlers): () => void {
    const unsubscribe = this.channels.subscribe(carChannel(carId), (raw) => {
      const message = parse(ToCar, raw);
      if (!message) return;
      if (message.t !== 'stop') this.#watchedUntil.set(carId, Date.now() + WATCH_LASTS_MS);
      if (message.t === 'drive') handlers.drive(message.throttle, message.steer);
      else if (message.t === 'stop') handlers.stop();
    });
    return () => {
      this.#watchedUntil.delete(carId);
      unsubscribe();
    };
  }

  sharePresence(held: () => number[], heard: (instance: string, carIds: number[]) => void): void {
    const announce = () =>
      this.channels.publish(PRESENCE_CHANNEL, JSON.stringify({ from: this.instanceId, carIds: held() }));
    this.channels.subscribe(PRESENCE_CHANNEL, (raw) => {
      const message = parse(Presence, raw);
      if (message && message.from !== this.instanceId) heard(message.from, message.carIds);
    });
    this.#presenceTimer = setInterval(announce, PRESENCE_EVERY_MS);
    // Back after an outage (or connected at start-up): the others hear of this one's cars now.
    this.channels.onStateChange((connected) => {
      if (connected) announce();
    });
  }

  close(): void {
    clearInterval(this.#presenceTimer);
  }

  sendTelemetry(carId: number, telemetry: Telemetry): void {
    if ((this.#watchedUntil.get(carId) ?? 0) < Date.now()) return;
    this.channels.publish(driverChannel(carId), JSON.stringify({ t: 'telemetry', telemetry }));
  }
}

/** A relay message from another instance, or null when it is not one (a version this one does not speak). */
function parse<T>(schema: z.ZodType<T>, raw: string): T | null {
  try {
    const checked = schema.safeParse(JSON.parse(raw));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}
