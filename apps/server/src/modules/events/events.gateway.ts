/**
 * The event socket /api/race-ws (registered outside the /api rate limiter): one set of sockets
 * per member. It answers `get_current_state` and `ping`, tells a driver why their car session
 * ended (`force_disconnect`), and closes all of a member's sockets when their sessions are
 * revoked (ban, deletion, password change) or the sockets of one session at its log-out. A socket
 * lives as long as its access token, renewed with `auth {token}` (socket-token.ts); a member and a
 * client address hold a few at most (socket-admission.ts). The race issue adds the race messages.
 */
import {
  CONTROL_LIMITS,
  EventClientMessage,
  type EventServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { memberFromAccessToken } from '../../http/authenticate.js';
import { type AccessTokenClaims, accessTokenKeys } from '../auth/access-token.js';
import {
  closeIfTooBig,
  MessageRateLimit,
  newDropCounters,
  parseMessage,
  sendJson,
} from '../control/message-guard.js';
import { assertOwnOrigin, queryOf } from '../control/socket-auth.js';
import { SocketToken, type TokenCheck } from '../control/socket-token.js';

const EVENT_MESSAGE_TYPES = ['get_current_state', 'ping', 'ping_update', 'auth'] as const;
/** Protocol pings keep proxies from closing idle sockets and find dead peers. */
const EVENT_PING_MS = 15_000;

export class EventSockets {
  readonly #byUser = new Map<number, Map<WebSocket, SocketToken>>();
  readonly dropped = newDropCounters();

  add(userId: number, socket: WebSocket, token: SocketToken): void {
    let sockets = this.#byUser.get(userId);
    if (!sockets) {
      sockets = new Map();
      this.#byUser.set(userId, sockets);
    }
    sockets.set(socket, token);
  }

  remove(userId: number, socket: WebSocket): void {
    const sockets = this.#byUser.get(userId);
    sockets?.delete(socket);
    if (sockets?.size === 0) this.#byUser.delete(userId);
  }

  /** Sends to every socket of the member (a slow reader among them is dropped). */
  sendToUser(userId: number, message: EventServerMessage): void {
    for (const socket of this.#byUser.get(userId)?.keys() ?? []) sendJson(socket, message, this.dropped);
  }

  /** `force_disconnect` then close, for every socket of the member. */
  disconnectUser(userId: number, reason: string): void {
    const sockets = this.#byUser.get(userId) ?? new Map<WebSocket, SocketToken>();
    this.#byUser.delete(userId);
    for (const socket of sockets.keys()) {
      sendJson(socket, { type: 'force_disconnect', reason } satisfies EventServerMessage, this.dropped);
      socket.close(SOCKET_CLOSE_CODES.forceDisconnect, reason);
    }
  }

  /** Closes the member's sockets whose token belongs to the session that ended (log-out, reuse). */
  closeSession(userId: number, sessionId: string): void {
    const sockets = this.#byUser.get(userId);
    for (const [socket, token] of sockets ?? []) {
      if (token.sessionId !== sessionId) continue;
      sockets?.delete(socket);
      socket.close(SOCKET_CLOSE_CODES.sessionRevoked, 'session revoked');
    }
    if (sockets?.size === 0) this.#byUser.delete(userId);
  }

  count(userId: number): number {
    return this.#byUser.get(userId)?.size ?? 0;
  }

  closeAll(): void {
    for (const sockets of this.#byUser.values()) for (const socket of sockets.keys()) socket.close(1001);
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
  const check: TokenCheck = (token) => memberFromAccessToken(app.database.db, keys, token);
  const sockets = app.eventSockets;
  const admitted = new WeakMap<FastifyRequest, AccessTokenClaims>();

  const offRevoked = app.events.on('user.sessions-revoked', ({ userId, reason }) =>
    sockets.disconnectUser(userId, reason),
  );
  const offSession = app.events.on('session.revoked', ({ userId, sessionId }) =>
    sockets.closeSession(userId, sessionId),
  );
  const offEnded = app.events.on('car.session-ended', ({ userId, reason }) =>
    sockets.sendToUser(userId, { type: 'force_disconnect', reason }),
  );
  app.addHook('preClose', async () => {
    offRevoked();
    offSession();
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
        app.socketAdmission.admitAddress(request);
        const { user, claims } = await check(queryOf(request).token ?? '');
        app.socketAdmission.admitMember(request, 'event', user.id, CONTROL_LIMITS.eventSocketsPerMember);
        admitted.set(request, claims);
      },
    },
    (socket, request) => {
      const claims = admitted.get(request);
      if (claims === undefined) {
        socket.close(1011, 'not admitted');
        return;
      }
      const userId = claims.userId;
      const token = new SocketToken(claims, () =>
        socket.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired'),
      );
      sockets.add(userId, socket, token);
      const send = (message: EventServerMessage) => sendJson(socket, message, sockets.dropped);
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
        token.stop();
        sockets.remove(userId, socket);
      });
      socket.on('message', (data) => {
        alive = true;
        // A socket being closed (expired, revoked…) acts on nothing it still receives.
        if (socket.readyState !== 1) return;
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
            send(currentState());
            return;
          case 'ping':
            send({ type: 'pong', timestamp: message.timestamp });
            return;
          case 'ping_update':
            // Used by the race issue (participants' ping).
            return;
          case 'auth':
            void token.renew(message.token, check).then((user) => {
              if (user) send({ type: 'auth_ok', expiresAt: token.expiresAt.toISOString() });
              else socket.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token refused');
            });
            return;
        }
      });
    },
  );
};
