/**
 * The event socket /api/race-ws (registered outside the /api rate limiter): one set of sockets
 * per member. It answers `get_current_state` and `ping`, tells a driver why their car session
 * ended (`force_disconnect`), and closes all of a member's sockets when their sessions are
 * revoked (ban, deletion, password change, log-out everywhere) or the sockets of one session at
 * its log-out. A socket lives as long as its access token, renewed with `auth {token}`
 * (sockets/socket-token.ts); a member and a client address hold a few at most. Declared with the
 * socket kit (sockets/define-socket.ts). The race: `join_lobby`, `toggle_ready` and `ping_update`
 * go to the race engine, each through the member's command budget and the registration check
 * (event-command-gate.ts); every `race.changed` is broadcast as `race_state_update` and every
 * counted lap as `live_leaderboard_update` (events.module.ts); `get_current_state` is answered
 * from the engine's memory.
 */
import {
  CONTROL_LIMITS,
  type DisconnectReason,
  EventClientMessage,
  type EventServerMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { FastifyPluginAsync } from 'fastify';
import { memberFromAccessToken } from '../../http/authenticate.js';
import { Broadcaster } from '../../sockets/broadcaster.js';
import { defineSocket, registerSockets } from '../../sockets/define-socket.js';
import { newDropCounters } from '../../sockets/message-guard.js';
import { messageTable } from '../../sockets/message-table.js';
import { queryOf } from '../../sockets/socket-auth.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import { SocketToken, type TokenCheck } from '../../sockets/socket-token.js';
import type { AccessTokenClaims } from '../auth/access-token.js';
import { RaceBusyError } from '../races/race-engine.js';
import { EventCommandGate } from './event-command-gate.js';

/** Protocol pings keep proxies from closing idle sockets and find dead peers. */
const EVENT_KEEPALIVE = { pingMs: 15_000, silenceMs: 20_000 };

/** One open event socket: the kit's connection and the token it lives on. */
interface EventLink {
  userId: number;
  connection: SocketConnection;
  token: SocketToken;
}

export class EventSockets {
  readonly #byUser = new Map<number, Set<EventLink>>();
  readonly dropped = newDropCounters();
  readonly #broadcaster = new Broadcaster(() => this.#connections());

  add(userId: number, link: EventLink): void {
    let links = this.#byUser.get(userId);
    if (!links) {
      links = new Set();
      this.#byUser.set(userId, links);
    }
    links.add(link);
  }

  remove(userId: number, link: EventLink): void {
    const links = this.#byUser.get(userId);
    links?.delete(link);
    if (links?.size === 0) this.#byUser.delete(userId);
  }

  /**
   * Sends one message to every open event socket: serialized once, written a chunk of sockets per
   * turn of the event loop so the relay is never held, a newer message of the same type replacing
   * one still waiting (sockets/broadcaster.ts). A slow reader is dropped.
   */
  broadcast(message: EventServerMessage): void {
    this.#broadcaster.send(message.type, message);
  }

  *#connections(): Iterable<SocketConnection> {
    for (const links of this.#byUser.values()) for (const { connection } of links) yield connection;
  }

  /** Sends to every socket of the member (a slow reader among them is dropped). */
  sendToUser(userId: number, message: EventServerMessage): void {
    for (const { connection } of this.#byUser.get(userId) ?? []) connection.send(message);
  }

  /** `force_disconnect` then close, for every socket of the member. */
  disconnectUser(userId: number, reason: DisconnectReason): void {
    const links = this.#byUser.get(userId) ?? new Set<EventLink>();
    this.#byUser.delete(userId);
    for (const { connection } of links) {
      connection.send({ type: 'force_disconnect', reason } satisfies EventServerMessage);
      connection.close(SOCKET_CLOSE_CODES.forceDisconnect, reason);
    }
  }

  /** Closes the member's sockets whose token belongs to the session that ended (log-out, reuse). */
  closeSession(userId: number, sessionId: string): void {
    const links = this.#byUser.get(userId);
    for (const link of links ?? []) {
      if (link.token.sessionId !== sessionId) continue;
      links?.delete(link);
      link.connection.close(SOCKET_CLOSE_CODES.sessionRevoked, 'session_revoked');
    }
    if (links?.size === 0) this.#byUser.delete(userId);
  }

  count(userId: number): number {
    return this.#byUser.get(userId)?.size ?? 0;
  }

  closeAll(): void {
    for (const links of this.#byUser.values()) for (const { connection } of links) connection.close(1001, '');
  }
}

export const eventRoutes: FastifyPluginAsync = async (app) => {
  const keys = app.tokenKeys;
  const check: TokenCheck = (token) => memberFromAccessToken(app.userCache, keys, token);
  const sockets = app.eventSockets;

  app.addHook('preClose', async () => sockets.closeAll());

  const races = app.raceEngine;
  const gate = new EventCommandGate(
    app.limitStores.window<number>(
      'event-commands',
      CONTROL_LIMITS.eventCommandsPerMember,
      CONTROL_LIMITS.eventCommandWindowMs,
    ),
    app.userCache,
  );
  /** A race command: run once the gate lets the member act (its refusal is the socket's `error`). */
  const command =
    <M>(run: (link: EventLink, message: M) => unknown) =>
    async (link: EventLink, message: M) => {
      await gate.admit(link.userId);
      return run(link, message);
    };
  const send = (link: EventLink, message: EventServerMessage) => link.connection.send(message);
  /** A join the engine cannot take now is answered `server_busy`: the client retries in 2 s. */
  const joinLobby = async (link: EventLink, carId: number) => {
    try {
      await races.join(link.userId, carId);
    } catch (error) {
      if (!(error instanceof RaceBusyError)) throw error;
      send(link, { type: 'server_busy' });
    }
  };
  registerSockets(app, [
    defineSocket({
      name: 'event',
      path: '/api/race-ws',
      ownOrigin: true,
      limits: {
        perAddress: true,
        perMember: {
          kind: 'event',
          max: CONTROL_LIMITS.eventSocketsPerMember,
          memberOf: (claims: AccessTokenClaims) => claims.userId,
        },
      },
      admit: async (request) => (await check(queryOf(request).token ?? '')).claims,
      open: (connection, claims): EventLink => {
        const link: EventLink = {
          userId: claims.userId,
          connection,
          token: new SocketToken(claims, () =>
            connection.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired'),
          ),
        };
        sockets.add(claims.userId, link);
        connection.onClose(() => {
          link.token.stop();
          sockets.remove(claims.userId, link);
        });
        return link;
      },
      messages: messageTable<EventLink, EventClientMessage>(EventClientMessage, {
        get_current_state: (link) => {
          const state = races.state();
          send(link, { type: 'race_state_update', payload: state });
          if (state.race_status === 'active')
            send(link, { type: 'live_leaderboard_update', data: races.leaderboard() });
        },
        ping: (link, { timestamp }) => send(link, { type: 'pong', timestamp }),
        ping_update: command((link, { latency }) => races.reportPing(link.userId, latency)),
        join_lobby: command((link, { carId }) => joinLobby(link, carId)),
        toggle_ready: command((link) => races.toggleReady(link.userId)),
        auth: async (link, { token }) => {
          const user = await link.token.renew(token, check);
          if (user) send(link, { type: 'auth_ok', expiresAt: link.token.expiresAt.toISOString() });
          else link.connection.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token refused');
        },
      }),
      keepalive: EVENT_KEEPALIVE,
      dropped: sockets.dropped,
    }),
  ]);
};
