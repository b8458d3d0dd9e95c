/**
 * `/janus`: Janus's WebSocket transport on the site's own origin (wss when the site is https), so
 * browsers need no other host or port. Only members get through (access token in the query, own
 * origin), and only what watching a car's stream needs is forwarded: sessions and handles of the
 * streaming plugin, `watch`/`start`/`pause`/`stop`, trickle, keepalive, hang-up and clean-up — on
 * sessions this very socket created. Admin requests (create, edit, destroy mountpoints…) never
 * reach Janus from a browser.
 */
import { ERROR_KEYS, JANUS_PATH, JANUS_SUBPROTOCOL } from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import WebSocket from 'ws';
import { userFromAccessToken } from '../../http/authenticate.js';
import { HttpError } from '../../http/errors.js';
import { accessTokenKeys } from '../auth/access-token.js';
import { MessageRateLimit } from '../control/message-guard.js';
import { assertOwnOrigin, queryOf } from '../control/socket-auth.js';
import { STREAMING_PLUGIN } from './janus-client.js';
import type { VideoService } from './video.service.js';

/** Largest signalling message from a browser (an SDP answer with its candidates fits easily). */
export const JANUS_MAX_MESSAGE_BYTES = 32 * 1024;
/** Janus messages per second a browser may send (trickle bursts included). */
const JANUS_MESSAGES_PER_SECOND = 50;
/** Video sockets one member may hold at once (a few tabs). */
const SOCKETS_PER_MEMBER = 4;
const STREAMING_REQUESTS = new Set(['watch', 'start', 'pause', 'stop']);

type JanusRequest = {
  janus?: unknown;
  transaction?: unknown;
  session_id?: unknown;
  plugin?: unknown;
  body?: { request?: unknown };
};

/** Why a browser's Janus message is refused, or null when it may go through. */
export function refusal(message: JanusRequest, sessions: ReadonlySet<number>): string | null {
  const kind = message.janus;
  if (typeof kind !== 'string' || typeof message.transaction !== 'string') return 'malformed request';
  if (kind === 'create') return null;
  if (typeof message.session_id !== 'number' || !sessions.has(message.session_id)) return 'unknown session';
  switch (kind) {
    case 'keepalive':
    case 'destroy':
    case 'detach':
    case 'hangup':
    case 'trickle':
      return null;
    case 'attach':
      return message.plugin === STREAMING_PLUGIN ? null : 'plugin not allowed';
    case 'message':
      return STREAMING_REQUESTS.has(String(message.body?.request)) ? null : 'request not allowed';
    default:
      return 'request not allowed';
  }
}

export interface JanusProxyOptions {
  video: VideoService;
}

export const janusProxyRoutes: FastifyPluginAsync<JanusProxyOptions> = async (app, { video }) => {
  const keys = accessTokenKeys(app.config.jwtSecret, app.config.accessTokenTtlSeconds);
  const members = new WeakMap<FastifyRequest, number>();
  const open = new Map<number, number>();

  app.get(
    JANUS_PATH,
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (request) => {
        assertOwnOrigin(request, app.config.publicUrl);
        const user = await userFromAccessToken(app.database.db, keys, queryOf(request).token ?? null);
        if (video.janusWsUrl === null)
          throw new HttpError(503, 'Live video is unavailable on this server', ERROR_KEYS.notReady);
        if ((open.get(user.id) ?? 0) >= SOCKETS_PER_MEMBER)
          throw new HttpError(429, 'Too many video connections', ERROR_KEYS.tooManyRequests);
        members.set(request, user.id);
      },
    },
    (browser, request) => {
      const userId = members.get(request);
      const upstreamUrl = video.janusWsUrl;
      if (userId === undefined || upstreamUrl === null) {
        browser.close(1011, 'not admitted');
        return;
      }
      open.set(userId, (open.get(userId) ?? 0) + 1);
      const janus = new WebSocket(upstreamUrl, JANUS_SUBPROTOCOL, { maxPayload: 1024 * 1024 });
      const rate = new MessageRateLimit(JANUS_MESSAGES_PER_SECOND);
      const sessions = new Set<number>();
      const creating = new Set<string>();
      const pending: string[] = [];

      const reply = (transaction: unknown, reason: string) => {
        if (browser.readyState !== WebSocket.OPEN) return;
        browser.send(
          JSON.stringify({ janus: 'error', transaction, error: { code: 403, reason: `Refused: ${reason}` } }),
        );
      };

      browser.on('message', (data, isBinary) => {
        if (isBinary || !rate.allow()) {
          browser.close(1008, isBinary ? 'text messages only' : 'too many messages');
          return;
        }
        const text = data.toString();
        if (text.length > JANUS_MAX_MESSAGE_BYTES) {
          browser.close(1009, 'message too big');
          return;
        }
        let message: JanusRequest;
        try {
          message = JSON.parse(text) as JanusRequest;
        } catch {
          reply(undefined, 'not JSON');
          return;
        }
        if (typeof message !== 'object' || message === null) {
          reply(undefined, 'malformed request');
          return;
        }
        const refused = refusal(message, sessions);
        if (refused) {
          reply(message.transaction, refused);
          return;
        }
        if (message.janus === 'create') creating.add(String(message.transaction));
        if (janus.readyState === WebSocket.OPEN) janus.send(text);
        else pending.push(text);
      });

      janus.on('open', () => {
        for (const text of pending.splice(0)) janus.send(text);
      });
      janus.on('message', (data) => {
        const text = data.toString();
        try {
          const answer = JSON.parse(text) as { janus?: string; transaction?: string; data?: { id?: number } };
          if (answer.transaction !== undefined && creating.delete(answer.transaction)) {
            if (answer.janus === 'success' && typeof answer.data?.id === 'number')
              sessions.add(answer.data.id);
          }
        } catch {
          // Janus only sends JSON; forward whatever it is.
        }
        if (browser.readyState === WebSocket.OPEN) browser.send(text);
      });

      const closeBoth = () => {
        if (browser.readyState === WebSocket.OPEN) browser.close(1011, 'video gateway closed');
        if (janus.readyState === WebSocket.OPEN || janus.readyState === WebSocket.CONNECTING)
          janus.terminate();
      };
      janus.on('close', closeBoth);
      janus.on('error', (error) => {
        app.log.warn({ err: error }, 'janus websocket error');
        closeBoth();
      });
      browser.on('error', () => closeBoth());
      browser.on('close', () => {
        // Janus destroys the sessions of a transport that goes away.
        const count = (open.get(userId) ?? 1) - 1;
        if (count <= 0) open.delete(userId);
        else open.set(userId, count);
        if (janus.readyState === WebSocket.OPEN || janus.readyState === WebSocket.CONNECTING) janus.close();
      });
    },
  );
};
