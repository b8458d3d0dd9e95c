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

  remove(key: K): void {
    const next = this.get(key) - 1;
    if (next <= 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
  }
}

/** Which cap a member's socket counts against (each kind has its own per-member limit). */
export type SocketKind = 'event' | 'controller' | 'video';

export class SocketAdmission {
  readonly #byAddress = new Counter<string>();
  readonly #byMember = new Counter<string>();

  constructor(readonly perAddress: number) {}

  /**
   * Takes a place for the request's client address, or throws 429. Call it before the slow
   * checks (token, database), so a flood from one address costs no database work past the cap.
   */
  admitAddress(request: FastifyRequest): void {
    if (!request.ws) return;
    const address = request.ip;
    if (this.#byAddress.get(address) >= this.perAddress) throw tooManySockets();
    this.#byAddress.add(address);
    this.#onConnectionEnd(request, () => this.#byAddress.remove(address));
  }

  /** Takes a place for the member's socket of this kind, or throws 429. */
  admitMember(request: FastifyRequest, kind: SocketKind, userId: number, max: number): void {
    if (!request.ws) return;
    const key = `${kind}:${userId}`;
    if (this.#byMember.get(key) >= max) throw tooManySockets();
    this.#byMember.add(key);
    this.#onConnectionEnd(request, () => this.#byMember.remove(key));
  }

  /** Places held by an address (tests, logs). */
  heldByAddress(address: string): number {
    return this.#byAddress.get(address);
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
