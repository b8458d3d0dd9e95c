/**
 * The streaming mountpoints this instance made on Janus, one per connected car (id = the car's
 * stream_id), and their PINs: the PIN lives in the database (video-pins.repo.ts) so every
 * instance answers the same one; each mountpoint remembers the PIN it was given, and a new PIN
 * evicts its viewers. When and for which car is video.service.ts's call.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { VideoCodec } from '@telerace/protocol';
import { SRTP_MASTER_LENGTH } from '@telerace/protocol/video-uplink';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type JanusClient, JanusError } from './janus-client.js';
import type { JanusLocator } from './janus-locator.js';
import type { VideoPins } from './video-pins.repo.js';

export const CODEC: VideoCodec = 'h264';
/** Janus streaming plugin: "no such mountpoint", "can't create" (e.g. the id exists), "unauthorized" (a wrong secret). */
const NO_SUCH_MOUNTPOINT = 455;
const CANT_CREATE = 456;
const UNAUTHORIZED = 457;

export interface Mountpoint {
  streamId: number;
  port: number;
  /**
   * The SRTP master key and salt the mountpoint takes (base64): made with it, told only to the car
   * over its socket, never stored — a mountpoint made again (Janus restarted, the car's secret
   * rotated, another instance took the car) has a new one.
   */
  srtpKey: string;
}

export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');

/**
 * Where the ingest reaches the mountpoints' RTP ports: the Janus the server runs is on this
 * machine; an external one on its REST API's host.
 */
export function janusMediaHost(config: Pick<Config, 'janusApiUrl'>): string {
  if (config.janusApiUrl === null) return '127.0.0.1';
  const host = new URL(config.janusApiUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  return isLoopback(host) ? '127.0.0.1' : host;
}

interface MountpointsDeps {
  config: Pick<Config, 'janusApiUrl' | 'jwtSecret'>;
  log: FastifyBaseLogger;
  janus: Pick<JanusLocator, 'client'>;
  /** The mountpoints' PINs, shared by every instance. */
  pins: VideoPins;
  /** The car's stream_id, or null when the car no longer exists. */
  streamIdOf(carId: number): Promise<number | null>;
}

export class Mountpoints {
  readonly #deps: MountpointsDeps;
  readonly #log: FastifyBaseLogger;
  /**
   * Mountpoints this instance made and answers for, by car id. With REDIS_URL one is forgotten
   * when its car leaves: the instance the car connects to next replaces it on the shared Janus.
   */
  readonly #made = new Map<number, Mountpoint>();
  /** The PIN each of those mountpoints was given (the stored one may have changed since). */
  readonly #applied = new Map<number, string>();
  /** Stream ids Janus holds under a secret this server cannot derive (said once each). */
  readonly #heldElsewhere = new Set<number>();

  constructor(deps: MountpointsDeps) {
    this.#deps = deps;
    this.#log = deps.log;
  }

  /** The mountpoint this instance made for the car, if any. */
  of(carId: number): Mountpoint | undefined {
    return this.#made.get(carId);
  }

  /** The cars whose mountpoint this instance made. */
  carIds(): number[] {
    return [...this.#made.keys()];
  }

  /** The PIN the car's mountpoint was given, if this instance made it. */
  appliedPin(carId: number): string | undefined {
    return this.#applied.get(carId);
  }

  /** The cars whose mountpoint was given a PIN here. */
  keyedCarIds(): number[] {
    return [...this.#applied.keys()];
  }

  /** This instance no longer answers for the car's mountpoint (nor trusts its port). */
  forget(carId: number): void {
    this.#made.delete(carId);
    this.#applied.delete(carId);
  }

  /** Janus restarted: every mountpoint made at run time is gone. */
  forgetAll(): void {
    this.#made.clear();
    this.#applied.clear();
  }

  /** The car's mountpoint, made now when this instance has none. */
  async ensure(client: JanusClient, carId: number): Promise<Mountpoint | null> {
    return this.#made.get(carId) ?? (await this.#create(client, carId));
  }

  /** Destroys the mountpoint `streamId` on Janus ("no such mountpoint" is fine). */
  async destroy(client: JanusClient, carId: number, streamId: number): Promise<void> {
    try {
      await client.destroyMountpoint(streamId, this.secretOf(streamId));
      this.#log.info({ carId, streamId }, 'mountpoint destroyed');
    } catch (error) {
      if (!(error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT))
        this.#log.warn({ err: error, carId }, 'destroying the mountpoint failed');
    }
  }

  /**
   * The mountpoint this instance made takes the stored PIN (already new) and loses its viewers:
   * an evicted viewer cannot come back with the old PIN.
   */
  async rekey(carId: number): Promise<void> {
    const mountpoint = this.#made.get(carId);
    const client = this.#deps.janus.client;
    if (!mountpoint || !client) return;
    const pin = (await this.pinsOf([carId])).get(carId);
    if (pin === undefined) return;
    const secret = this.secretOf(mountpoint.streamId);
    try {
      await client.changePinAndEvict(mountpoint.streamId, secret, pin);
      this.#applied.set(carId, pin);
      this.#log.info({ carId, streamId: mountpoint.streamId }, 'new PIN, viewers evicted');
    } catch (error) {
      // Gone meanwhile (Janus restarted): re-created, without viewers, with the new PIN.
      this.#made.delete(carId);
      this.#applied.delete(carId);
      if (error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT) return;
      // Any other failure (Janus slow, or an external Janus too old for `kick_all`) may have left
      // the old PIN or a viewer in place: destroying the mountpoint drops both; it is re-created
      // (and the car told its port) when next needed.
      this.#log.warn({ err: error, carId }, 'evicting the viewers failed: destroying the mountpoint');
      await client.destroyMountpoint(mountpoint.streamId, secret).catch((destroyError: unknown) => {
        this.#log.warn({ err: destroyError, carId }, 'destroying the mountpoint failed');
      });
    }
  }

  /** The stored PINs, stable across re-creations so viewers' retries keep working. */
  pinsOf(carIds: readonly number[]): Promise<Map<number, string>> {
    return this.#deps.pins.pinsOf(carIds, newPin);
  }

  /**
   * The mountpoint's secret, derived from the streaming plugin's admin key: the key changes only
   * with a restart of Janus, which drops every mountpoint made at run time, so no mountpoint ever
   * outlives the key its secret came from. Rotating JWT_SECRET leaves video alone. Only an
   * external Janus without an admin key falls back to JWT_SECRET (docs/operations.md "Secrets").
   */
  secretOf(streamId: number): string {
    return mountpointSecret(this.#deps.janus.client?.adminKey ?? this.#deps.config.jwtSecret, streamId);
  }

  /**
   * Asks Janus which of the cars' mountpoints it still has: one `list` with the admin key (private
   * mountpoints are listed only with it), else one `info` per car, one after the other; with no
   * mountpoint to ask about, its `/info`. Never a burst of requests: they share the event loop
   * with the cars' control traffic. Resolves whether Janus answered: an error it sends back is an
   * answer; a refused connection, a timeout, or something else than Janus answering is not.
   */
  async check(carIds: number[]): Promise<boolean> {
    const client = this.#deps.janus.client;
    if (!client) return false;
    const known = carIds.flatMap((carId) => {
      const mountpoint = this.#made.get(carId);
      return mountpoint ? [{ carId, mountpoint }] : [];
    });
    const forget = ({ carId, mountpoint }: { carId: number; mountpoint: Mountpoint }) => {
      if (this.#made.get(carId) !== mountpoint) return;
      this.#made.delete(carId);
      this.#log.warn({ carId }, 'mountpoint missing (Janus restarted?): re-creating it');
    };
    try {
      if (known.length === 0) {
        await client.serverInfo();
        return true;
      }
      if (client.adminKey !== null) {
        const listed = new Set((await client.listMountpoints()).map((summary) => summary.id));
        for (const entry of known) if (!listed.has(entry.mountpoint.streamId)) forget(entry);
        return true;
      }
      for (const entry of known) {
        const { streamId } = entry.mountpoint;
        try {
          await client.info(streamId, this.secretOf(streamId));
        } catch (error) {
          if (!(error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT)) throw error;
          forget(entry);
        }
      }
      return true;
    } catch (error) {
      if (!(error instanceof JanusError)) return false;
      this.#log.warn({ err: error }, 'Janus refused the mountpoint check');
      return true;
    }
  }

  /**
   * Janus has a mountpoint with the car's id under a secret this server cannot derive: made before
   * the admin key changed without a restart of Janus (or, without an admin key, before JWT_SECRET
   * changed). Janus destroys a mountpoint only with its secret — not with the admin key — so only
   * a restart of Janus frees the id. Said once; the periodic check tries again quietly.
   */
  #cannotReplace(carId: number, streamId: number): void {
    if (this.#heldElsewhere.has(streamId)) return;
    this.#heldElsewhere.add(streamId);
    this.#log.error(
      { carId, streamId },
      'Janus holds this car\'s mountpoint under another secret and refuses to replace it: restart Janus (docs/operations.md "Secrets")',
    );
  }

  async #create(client: JanusClient, carId: number): Promise<Mountpoint | null> {
    const streamId = await this.#deps.streamIdOf(carId);
    if (streamId === null) return null;
    const pin = (await this.pinsOf([carId])).get(carId);
    if (pin === undefined) return null;
    // Only the ingest sends to the mountpoint: on loopback, unless Janus is another machine.
    const host = janusMediaHost(this.#deps.config);
    const options = {
      id: streamId,
      pin,
      secret: this.secretOf(streamId),
      codec: CODEC,
      iface: isLoopback(host) ? '127.0.0.1' : undefined,
      srtpKey: newSrtpKey(),
    };
    let created: { port: number };
    try {
      created = await client.createMountpoint(options);
    } catch (error) {
      if (!(error instanceof JanusError && error.code === CANT_CREATE)) throw error;
      // Left over from an earlier run of this server (external Janus): replace it.
      try {
        await client.destroyMountpoint(streamId, options.secret);
      } catch (destroyError) {
        if (!(destroyError instanceof JanusError && destroyError.code === UNAUTHORIZED)) throw destroyError;
        this.#cannotReplace(carId, streamId);
        return null;
      }
      created = await client.createMountpoint(options);
    }
    this.#heldElsewhere.delete(streamId);
    const mountpoint = { streamId, port: created.port, srtpKey: options.srtpKey };
    this.#made.set(carId, mountpoint);
    this.#applied.set(carId, pin);
    this.#log.info({ carId, streamId, port: created.port }, 'mountpoint created');
    return mountpoint;
  }
}

/**
 * A mountpoint's secret, derived from a key every server shares with Janus (the streaming plugin's
 * admin key): after a server restart it still opens the mountpoints an external Janus kept, so
 * they can be destroyed and re-created; another instance derives the same.
 */
export function mountpointSecret(key: string, streamId: number): string {
  return createHmac('sha256', key).update(`janus-mountpoint:${streamId}`).digest('base64url');
}

/** A fresh SRTP master key and salt for a mountpoint (30 random bytes, base64). */
export function newSrtpKey(): string {
  return randomBytes(SRTP_MASTER_LENGTH).toString('base64');
}

export function newPin(): string {
  return randomBytes(9).toString('base64url');
}
