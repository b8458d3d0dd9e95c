/**
 * The event socket /api/race-ws (registered outside the /api rate limiter): one set of sockets
 * per member. It answers `get_current_state` and `ping`, tells a driver why their car session
 * ended (`force_disconnect`), and closes all of a member's sockets when their sessions are
 * revoked (ban, deletion, password change). The race issue adds the race messages.
 */
import {
  CONTROL_LIMITS,
  EventClientMessage,
  type EventServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { userFromAccessToken } from '../../http/authenticate.js';
import { accessTokenKeys } from '../auth/access-token.js';
import {
  closeIfTooBig,
  MessageRateLimit,
  newDropCounters,
  parseMessage,
  sendJson,
} from '../control/message-guard.js';
import { assertOwnOrigin, queryOf } from '../control/socket-auth.js';

const EVENT_MESSAGE_TYPES = ['get_current_state', 'ping', 'ping_update'] as const;
/** Protocol pings keep proxies from closing idle sockets and find dead peers. */
const EVENT_PING_MS = 15_000;

export class EventSockets {
  readonly #byUser = new Map<number, Set<WebSocket>>();
  readonly dropped = newDropCounters();

  add(userId: number, socket: WebSocket): void {
    let sockets = this.#byUser.get(userId);
    if (!sockets) {
      sockets = new Set();
      this.#byUser.set(userId, sockets);
    }
    sockets.add(socket);
  }

  remove(userId: number, socket: WebSocket): void {
    const sockets = this.#byUser.get(userId);
    sockets?.delete(socket);
    if (sockets?.size === 0) this.#byUser.delete(userId);
  }

  sendToUser(userId: number, message: EventServerMessage): void {
    for (const socket of this.#byUser.get(userId) ?? []) sendJson(socket, message);
  }

  /** `force_disconnect` then close, for every socket of the member. */
  disconnectUser(userId: number, reason: string): void {
    const sockets = this.#byUser.get(userId) ?? new Set();
    this.#byUser.delete(userId);
    for (const socket of sockets) {
      sendJson(socket, { type: 'force_disconnect', reason } satisfies EventServerMessage);
      socket.close(SOCKET_CLOSE_CODES.forceDisconnect, reason);
    }
  }

  count(userId: number): number {
    return this.#byUser.get(userId)?.size ?? 0;
  }

  closeAll(): void {
    for (const sockets of this.#byUser.values()) for (const socket of sockets) socket.close(1001);
  }
}

/** The race state before the race issue fills it. */
function currentState(): EventServerMessage {
  return {
    type: 'race_state_update',
    payload: {
      race_status: 'idle',
      raffle_status: 'closed',
      race_expires_at: null,
      countdown_value: null,
      readyCount: 0,
      totalParticipants: 0,
      participants: [],
    },
  };
}

export const eventRoutes: FastifyPluginAsync = async (app) => {
  const keys = accessTokenKeys(app.config.jwtSecret, app.config.accessTokenTtlSeconds);
  const sockets = app.eventSockets;
  const userIds = new WeakMap<FastifyRequest, number>();

  const offRevoked = app.events.on('user.sessions-revoked', ({ userId, reason }) =>
    sockets.disconnectUser(userId, reason),
  );
  const offEnded = app.events.on('car.session-ended', ({ userId, reason }) =>
    sockets.sendToUser(userId, { type: 'force_disconnect', reason }),
  );
  app.addHook('preClose', async () => {
    offRevoked();
    offEnded();
    sockets.closeAll();
  });

  app.get(
    '/api/race-ws',
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (request) => {
        assertOwnOrigin(request, app.config.publicUrl);
        const user = await userFromAccessToken(app.database.db, keys, queryOf(request).token ?? null);
        userIds.set(request, user.id);
      },
    },
    (socket, request) => {
      const userId = userIds.get(request);
      if (userId === undefined) {
        socket.close(1011, 'not admitted');
        return;
      }
      sockets.add(userId, socket);
      const rate = new MessageRateLimit(CONTROL_LIMITS.maxMessagesPerSecond);
      let alive = true;
      const pinger = setInterval(() => {
        if (!alive) {
          socket.terminate();
          return;
        }
        alive = false;
        if (socket.readyState === 1) socket.ping();
      }, EVENT_PING_MS);
      socket.on('pong', () => {
        alive = true;
      });
      socket.on('error', (error) => request.log.warn({ err: error }, 'event socket error'));
      socket.on('close', () => {
        clearInterval(pinger);
        sockets.remove(userId, socket);
      });
      socket.on('message', (data) => {
        alive = true;
        if (closeIfTooBig(socket, data)) return;
        if (!rate.allow()) {
          sockets.dropped.rateLimited += 1;
          socket.close(SOCKET_CLOSE_CODES.policy, 'too many messages');
          return;
        }
        const message = parseMessage(data, EventClientMessage, EVENT_MESSAGE_TYPES, sockets.dropped);
        if (!message) return;
        switch (message.type) {
          case 'get_current_state':
            sendJson(socket, currentState());
            return;
          case 'ping':
            sendJson(socket, { type: 'pong', timestamp: message.timestamp } satisfies EventServerMessage);
            return;
          case 'ping_update':
            // Used by the race issue (participants' ping).
            return;
        }
      });
    },
  );
};
