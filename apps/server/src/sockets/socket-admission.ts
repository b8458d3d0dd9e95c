/**
 * How many browser sockets one client address and one member may hold at once (issue 10: one
 * token once opened ~20,000 event sockets and the server ran out of file descriptors).
 *
 * A place is taken in the route's preValidation, in the same synchronous step as the check, so
 * many upgrades of one member admitted at the same moment cannot all slip past the cap. It is
 * given back when the upgrade request's TCP connection closes: that connection becomes the
 * WebSocket once upgraded, and is destroyed when the upgrade is refused or never completes — so
 * no reservation outlives its socket, whatever happens between preValidation and the handler.
 * A plain GET on a socket path (no upgrade) never becomes a socket and takes no place.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Places of the browser sockets, per client address and per member. */
    socketAdmission: SocketAdmission;
  }
}

export const tooManySockets = (): HttpError =>
  new HttpError(429, 'Too many open connections', ERROR_KEYS.tooManyRequests);

/** Counts that go up by one per place and disappear at zero. */
class Counter<K> {
  readonly #counts = new Map<K, number>();

  get(key: K): number {
    return this.#counts.get(key) ?? 0;
  }

  add(key: K): void {
    this.#counts.set(key, this.get(key) + 1);
  }

  keys(): Iterable<K> {
    return this.#counts.keys();
  }

  remove(key: K): void {
    const next = this.get(key) - 1;
    if (next <= 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
  }
}

/** Which cap a member's socket counts against (each kind has its own per-member limit). */
export type SocketKind = 'event' | 'controller' | 'video';

/**
 * Places shared with the other instances (REDIS_URL: scale-out/redis-socket-places.ts): asked
 * after this instance's own count allowed the socket; 'unshared' when Redis did not answer (the
 * socket is let in on this instance's count alone).
 */
export interface SharedSocketPlaces {
  take(key: string, max: number): Promise<'taken' | 'full' | 'unshared'>;
  release(key: string, place: 'taken' | 'full' | 'unshared'): void;
}

export class SocketAdmission {
  /** This instance's places per key: `address:<ip>`, `member:<kind>:<id>`. */
  readonly #places = new Counter<string>();
  #shared: SharedSocketPlaces | null = null;

  constructor(readonly perAddress: number) {}

  /** Counts every place on all instances too (REDIS_URL); set once at start-up. */
  share(shared: SharedSocketPlaces): void {
    this.#shared = shared;
  }

  /** This instance's places of `key` (the shared store writes them back after a Redis outage). */
  heldHere(key: string): number {
    return this.#places.get(key);
  }

  /** The keys this instance holds places of. */
  keysHere(): Iterable<string> {
    return this.#places.keys();
  }

  /**
   * Takes a place for the request's client address, or throws 429. Call it before the slow
   * checks (token, database), so a flood from one address costs no database work past the cap.
   */
  async admitAddress(request: FastifyRequest): Promise<void> {
    if (!request.ws) return;
    await this.#admit(request, `address:${request.ip}`, this.perAddress);
  }

  /** Takes a place for the member's socket of this kind, or throws 429. */
  async admitMember(request: FastifyRequest, kind: SocketKind, userId: number, max: number): Promise<void> {
    if (!request.ws) return;
    await this.#admit(request, `member:${kind}:${userId}`, max);
  }

  /** Places held by an address (tests, logs). */
  heldByAddress(address: string): number {
    return this.#places.get(`address:${address}`);
  }

  async #admit(request: FastifyRequest, key: string, max: number): Promise<void> {
    // Checked and taken here in one synchronous step; the shared count is asked after.
    if (this.#places.get(key) >= max) throw tooManySockets();
    this.#places.add(key);
    const shared = this.#shared;
    const place = shared?.take(key, max);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#places.remove(key);
      if (shared && place) void place.then((taken) => shared.release(key, taken));
    };
    this.#onConnectionEnd(request, release);
    if (place && (await place) === 'full') {
      release();
      throw tooManySockets();
    }
  }

  #onConnectionEnd(request: FastifyRequest, release: () => void): void {
    const connection = request.raw.socket;
    if (connection.destroyed) {
      release();
      return;
    }
    connection.once('close', release);
  }
}
