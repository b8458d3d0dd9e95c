/**
 * Every member's open browser sockets — event, controller, video — by kind and member, and the
 * one place a revocation closes them: all of a member's sockets when their sessions are revoked
 * (ban, deletion, password change, log out everywhere), those living on one login session at its
 * log-out (or a replayed refresh token), the video ones of an admin who is demoted.
 *
 * A socket is admitted before it is registered: its token is checked (a database read may wait),
 * its places are taken, the upgrade is answered. A revocation landing in that window finds
 * nothing to close, and the socket would then live until its token expires. So the socket kit
 * opens an admission window before the first step that waits (`admitting`), and the revocations
 * made while any window is open are remembered; a socket registering is closed at once by one
 * made since its own window opened. Windows and revocations are ordered by a counter, not by
 * time: two of them in the same millisecond (or on a test's manual clock) are still told apart.
 * Nothing is remembered while no socket is being admitted.
 */
import { type DisconnectReason, SOCKET_CLOSE_CODES } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import type { EventHandlers } from '../events.js';
import type { SocketKind } from './socket-admission.js';

/** Why a socket is closed, as its page reads it: the close code and a reason. */
export type Revocation =
  /** Every session of the member ended. */
  | { code: typeof SOCKET_CLOSE_CODES.forceDisconnect; reason: DisconnectReason }
  /** The login session the socket lives on ended. */
  | { code: typeof SOCKET_CLOSE_CODES.sessionRevoked; reason: 'session_revoked' }
  /** An admin was demoted: the video sockets they opened go (they watched with admins' PINs). */
  | { code: typeof SOCKET_CLOSE_CODES.roleChanged; reason: 'role_changed' };

/** What the registry needs of an open socket. */
export interface MemberSocket {
  readonly userId: number;
  /** The login session (refresh-token family) of the access token the socket lives on now. */
  readonly loginSessionId: string | null;
  /** Closes it; each kind knows what goes first (the car to neutral, `force_disconnect`). */
  revoke(revocation: Revocation): void;
}

/** One kind's sockets, typed as that kind's owner keeps them. */
export interface MemberSocketsOfKind<S extends MemberSocket> {
  /**
   * Registers the socket admitted by this upgrade request, ending its admission window; returns
   * its removal (call it when the socket closes). A revocation made since the window opened
   * closes it at once.
   */
  add(request: FastifyRequest, socket: S): () => void;
  /** The member's open sockets of this kind. */
  of(userId: number): Iterable<S>;
  count(userId: number): number;
  /** Every open socket of this kind. */
  all(): Iterable<S>;
}

interface Remembered {
  /** The counter's value when it was made. */
  order: number;
  userId: number;
  /** Null: every session of the member. */
  sessionId: string | null;
  kinds: ReadonlySet<SocketKind>;
  revocation: Revocation;
}

const EVERY_KIND: ReadonlySet<SocketKind> = new Set(['event', 'controller', 'video']);

export class MemberSockets {
  readonly #byKind = new Map<SocketKind, Map<number, Set<MemberSocket>>>();
  /**
   * The admission windows open now, with the counter's value when each opened. Opened in
   * counter order, so the first one is the oldest.
   */
  readonly #windows = new Map<FastifyRequest, number>();
  /** Revocations made while a window was open, oldest first. */
  #remembered: Remembered[] = [];
  #counter = 0;

  /** The registry of one kind of socket, taken once by the module that owns that kind. */
  kind<S extends MemberSocket>(kind: SocketKind): MemberSocketsOfKind<S> {
    if (this.#byKind.has(kind)) throw new Error(`the ${kind} sockets are already registered`);
    const byMember = new Map<number, Set<S>>();
    this.#byKind.set(kind, byMember);
    const remove = (socket: S) => {
      const sockets = byMember.get(socket.userId);
      sockets?.delete(socket);
      if (sockets?.size === 0) byMember.delete(socket.userId);
    };
    return {
      add: (request, socket) => {
        const missed = this.#endWindow(request, kind, socket);
        if (missed) {
          socket.revoke(missed);
          return () => {};
        }
        let sockets = byMember.get(socket.userId);
        if (!sockets) {
          sockets = new Set();
          byMember.set(socket.userId, sockets);
        }
        sockets.add(socket);
        return () => remove(socket);
      },
      of: (userId) => byMember.get(userId) ?? [],
      count: (userId) => byMember.get(userId)?.size ?? 0,
      *all() {
        for (const sockets of byMember.values()) yield* sockets;
      },
    };
  }

  /**
   * This upgrade request is being admitted: from now on a revocation reaches the socket it
   * becomes. The window ends when the socket registers (`add`) or the admission fails
   * (`abandoned`).
   */
  admitting(request: FastifyRequest): void {
    this.#windows.set(request, this.#counter);
  }

  /** The admission was refused, or its connection ended before the socket opened. */
  abandoned(request: FastifyRequest): void {
    if (this.#windows.delete(request)) this.#forget();
  }

  /** Sockets being admitted now (tests, diagnostics). */
  get beingAdmitted(): number {
    return this.#windows.size;
  }

  /** Revocations remembered now: none once no socket is being admitted (tests, diagnostics). */
  get remembered(): number {
    return this.#remembered.length;
  }

  /** Closes the member's sockets (of these kinds), and those being admitted. */
  revokeMember(userId: number, revocation: Revocation, kinds: ReadonlySet<SocketKind> = EVERY_KIND): void {
    this.#revoke({ userId, sessionId: null, kinds, revocation });
  }

  /** Closes the member's sockets living on that login session, and those being admitted with it. */
  revokeSession(userId: number, sessionId: string): void {
    this.#revoke({
      userId,
      sessionId,
      kinds: EVERY_KIND,
      revocation: { code: SOCKET_CLOSE_CODES.sessionRevoked, reason: 'session_revoked' },
    });
  }

  /** The one subscriber of the revocations (the member-sockets module's `on`). */
  handlers(): EventHandlers {
    return {
      'user.sessions-revoked': ({ userId, reason }) =>
        this.revokeMember(userId, { code: SOCKET_CLOSE_CODES.forceDisconnect, reason }),
      'session.revoked': ({ userId, sessionId }) => this.revokeSession(userId, sessionId),
    };
  }

  #revoke(target: Omit<Remembered, 'order'>): void {
    this.#counter += 1;
    if (this.#windows.size > 0) this.#remembered.push({ order: this.#counter, ...target });
    for (const kind of target.kinds) {
      const sockets = this.#byKind.get(kind)?.get(target.userId);
      if (!sockets) continue;
      // Out of the registry first: a socket is revoked once, whatever its close does meanwhile.
      const closing = [...sockets].filter((socket) => concerns(target, kind, socket));
      for (const socket of closing) sockets.delete(socket);
      if (sockets.size === 0) this.#byKind.get(kind)?.delete(target.userId);
      for (const socket of closing) socket.revoke(target.revocation);
    }
  }

  /** Ends the request's window: the revocation it missed, if any. */
  #endWindow(request: FastifyRequest, kind: SocketKind, socket: MemberSocket): Revocation | null {
    const opened = this.#windows.get(request);
    // Only the socket kit registers a member socket, always after opening its window.
    if (opened === undefined) throw new Error(`a ${kind} socket registered without an admission window`);
    this.#windows.delete(request);
    const missed = this.#remembered.find(
      (remembered) => remembered.order > opened && concerns(remembered, kind, socket),
    );
    this.#forget();
    return missed?.revocation ?? null;
  }

  /** Drops what no open window can have missed. */
  #forget(): void {
    const oldest = this.#windows.values().next();
    if (oldest.done) {
      this.#remembered = [];
      return;
    }
    const kept = this.#remembered.findIndex((remembered) => remembered.order > oldest.value);
    this.#remembered = kept === -1 ? [] : this.#remembered.slice(kept);
  }
}

function concerns(
  target: Omit<Remembered, 'order'>,
  kind: SocketKind,
  socket: Pick<MemberSocket, 'userId' | 'loginSessionId'>,
): boolean {
  return (
    target.kinds.has(kind) &&
    target.userId === socket.userId &&
    (target.sessionId === null || target.sessionId === socket.loginSessionId)
  );
}
