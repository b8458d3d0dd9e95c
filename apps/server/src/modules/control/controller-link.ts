/**
 * One driver's control socket. The server pings it every CONTROL_LIMITS.controllerPingMs; when
 * nothing (message or pong) was heard for CONTROL_LIMITS.controllerSilenceMs it is treated as
 * gone: the socket is dropped and the relay stops the car. It lives as long as its access token,
 * renewed with `auth {token}` (socket-token.ts).
 */
import {
  type CarConfig,
  CONTROL_LIMITS,
  ControllerMessage,
  type ControllerServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { AccessTokenClaims } from '../auth/access-token.js';
import type { UserRow } from '../users/users.repo.js';
import {
  closeIfTooBig,
  type DropCounters,
  MessageRateLimit,
  parseMessage,
  sendJson,
} from './message-guard.js';
import { SocketToken, type TokenCheck } from './socket-token.js';

const CONTROLLER_MESSAGE_TYPES = ['drive', 'config', 'controller-ping', 'auth'] as const;

const NOT_ADMIN = 'Only admins can change the car settings.';

/** Who opened the controller socket, and how to check them again later. */
export interface ControllerAccess {
  /** The member as the upgrade found them. */
  user: UserRow;
  /** The access token the socket was opened with. */
  claims: AccessTokenClaims;
  /** Verifies the token of an `auth` message. */
  check: TokenCheck;
  /** The member's row as it is now: `config` is authorised against it, not against `user`. */
  currentUser(): Promise<UserRow | null>;
}

export interface ControllerLinkHandlers {
  onDrive(link: ControllerLink, throttle: number, steer: number): void;
  /** Saves the admin's config; rejects with a message for the driver. */
  onConfig(link: ControllerLink, admin: UserRow, settings: CarConfig): Promise<void>;
  onClose(link: ControllerLink): void;
}

export class ControllerLink {
  #lastHeard = Date.now();
  #user: UserRow;
  readonly #pinger: NodeJS.Timeout;
  readonly #rate = new MessageRateLimit();
  readonly #token: SocketToken;

  constructor(
    readonly carId: number,
    readonly sessionId: number,
    readonly access: ControllerAccess,
    readonly socket: WebSocket,
    readonly handlers: ControllerLinkHandlers,
    readonly dropped: DropCounters,
    readonly log: FastifyBaseLogger,
  ) {
    this.#user = access.user;
    this.#token = new SocketToken(access.claims, () =>
      this.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired'),
    );
    this.#pinger = setInterval(() => this.#checkAlive(), CONTROL_LIMITS.controllerPingMs);
    socket.on('message', (data) => this.#onMessage(data));
    socket.on('pong', () => {
      this.#lastHeard = Date.now();
    });
    socket.on('error', (error) => log.warn({ err: error, carId }, 'controller socket error'));
    socket.on('close', () => {
      clearInterval(this.#pinger);
      this.#token.stop();
      handlers.onClose(this);
    });
  }

  /** The member as last known (role changes and `auth` keep it current). */
  get user(): UserRow {
    return this.#user;
  }

  /** The login session (refresh-token family) of the token the socket lives on. */
  get loginSessionId(): string | null {
    return this.#token.sessionId;
  }

  /** A role change reached this socket: later `config` messages follow the new role. */
  setAdmin(isAdmin: boolean): void {
    this.#user = { ...this.#user, isAdmin };
  }

  send(message: ControllerServerMessage): void {
    sendJson(this.socket, message, this.dropped);
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  #checkAlive(): void {
    if (Date.now() - this.#lastHeard > CONTROL_LIMITS.controllerSilenceMs) {
      this.log.info({ carId: this.carId, userId: this.user.id }, 'controller silent, treated as gone');
      // terminate: a silent peer would not answer a close handshake.
      this.socket.terminate();
      return;
    }
    if (this.socket.readyState === 1) this.socket.ping();
  }

  #onMessage(data: Parameters<typeof parseMessage>[0]): void {
    this.#lastHeard = Date.now();
    // A socket being closed (session ended, token expired, revoked…) acts on nothing it still receives.
    if (this.socket.readyState !== 1) return;
    if (closeIfTooBig(this.socket, data)) return;
    if (!this.#rate.allow()) {
      this.dropped.rateLimited += 1;
      this.log.warn({ carId: this.carId, userId: this.user.id }, 'controller flooding, closing');
      this.close(SOCKET_CLOSE_CODES.policy, 'too many messages');
      return;
    }
    const message = parseMessage(data, ControllerMessage, CONTROLLER_MESSAGE_TYPES, this.dropped);
    if (!message) return;
    switch (message.type) {
      case 'drive':
        this.handlers.onDrive(this, message.throttle, message.steer);
        return;
      case 'controller-ping':
        this.send({
          type: 'controller-pong',
          ...(message.timestamp === undefined ? {} : { timestamp: message.timestamp }),
        });
        return;
      case 'auth':
        void this.#token.renew(message.token, this.access.check).then((user) => {
          if (!user) {
            this.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token refused');
            return;
          }
          this.#user = user;
          this.send({ type: 'auth-ok', expiresAt: this.#token.expiresAt.toISOString() });
        });
        return;
      case 'config':
        void this.#config(message.settings);
        return;
    }
  }

  /** Only an admin — as the database says now, not as the upgrade found them — changes the car's settings. */
  async #config(settings: CarConfig): Promise<void> {
    if (!this.user.isAdmin) {
      this.send({ type: 'error', error: NOT_ADMIN });
      return;
    }
    try {
      const current = await this.access.currentUser();
      if (!current?.isAdmin || current.isBanned) {
        if (current) this.#user = current;
        this.send({ type: 'error', error: NOT_ADMIN });
        return;
      }
      await this.handlers.onConfig(this, current, settings);
      this.send({ type: 'config-saved', settings });
    } catch (error) {
      this.log.warn({ err: error, carId: this.carId }, 'saving car config failed');
      this.send({ type: 'error', error: 'Could not save the car settings.' });
    }
  }
}
