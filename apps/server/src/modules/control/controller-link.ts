/**
 * One driver's control socket. The server pings it every CONTROL_LIMITS.controllerPingMs; when
 * nothing (message or pong) was heard for CONTROL_LIMITS.controllerSilenceMs it is treated as
 * gone: the socket is dropped and the relay stops the car.
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
import type { UserRow } from '../users/users.repo.js';
import {
  closeIfTooBig,
  type DropCounters,
  MessageRateLimit,
  parseMessage,
  sendJson,
} from './message-guard.js';

const CONTROLLER_MESSAGE_TYPES = ['drive', 'config', 'controller-ping'] as const;

export interface ControllerLinkHandlers {
  onDrive(link: ControllerLink, throttle: number, steer: number): void;
  /** Saves the admin's config; rejects with a message for the driver. */
  onConfig(link: ControllerLink, settings: CarConfig): Promise<void>;
  onClose(link: ControllerLink): void;
}

export class ControllerLink {
  #lastHeard = Date.now();
  readonly #pinger: NodeJS.Timeout;
  readonly #rate = new MessageRateLimit();

  constructor(
    readonly carId: number,
    readonly sessionId: number,
    readonly user: UserRow,
    readonly socket: WebSocket,
    readonly handlers: ControllerLinkHandlers,
    readonly dropped: DropCounters,
    readonly log: FastifyBaseLogger,
  ) {
    this.#pinger = setInterval(() => this.#checkAlive(), CONTROL_LIMITS.controllerPingMs);
    socket.on('message', (data) => this.#onMessage(data));
    socket.on('pong', () => {
      this.#lastHeard = Date.now();
    });
    socket.on('error', (error) => log.warn({ err: error, carId }, 'controller socket error'));
    socket.on('close', () => {
      clearInterval(this.#pinger);
      handlers.onClose(this);
    });
  }

  send(message: ControllerServerMessage): void {
    sendJson(this.socket, message);
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
      case 'config':
        if (!this.user.isAdmin) {
          this.send({ type: 'error', error: 'Only admins can change the car settings.' });
          return;
        }
        this.handlers.onConfig(this, message.settings).then(
          () => this.send({ type: 'config-saved', settings: message.settings }),
          (error: unknown) => {
            this.log.warn({ err: error, carId: this.carId }, 'saving car config failed');
            this.send({ type: 'error', error: 'Could not save the car settings.' });
          },
        );
        return;
    }
  }
}
