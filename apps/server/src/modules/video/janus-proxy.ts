/**
 * `/janus`: Janus's WebSocket transport on the site's own origin (wss when the site is https), so
 * browsers need no other host or port. Only members who accepted the terms get through (access
 * token in the query, own origin), and only what watching a car's stream needs is forwarded, on
 * the sessions and handles this very socket created, a few at a time (janus-guard.ts). Admin
 * requests (create, edit, destroy mountpoints…) never reach Janus from a browser. A member's
 * video sockets are kept in the member-sockets registry, which closes them when their sessions
 * are revoked, even during their admission (sockets/member-sockets.ts).
 */
import { ERROR_KEYS, JANUS_PATH, JANUS_SUBPROTOCOL } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import WebSocket from 'ws';
import { HttpError } from '../../http/errors.js';
import { type Admission, defineRawSocket, type SocketRoute } from '../../sockets/define-socket.js';
import type { MemberSocket, MemberSocketsOfKind } from '../../sockets/member-sockets.js';
import { MessageRateLimit } from '../../sockets/message-guard.js';
import { type JanusAnswer, type JanusRequest, JanusSocketGuard } from './janus-guard.js';
import type { VideoService } from './video.service.js';

/** Largest signalling message from a browser (an SDP answer with its candidates fits easily). */
export const JANUS_MAX_MESSAGE_BYTES = 32 * 1024;
/** Janus messages per second a browser may send (trickle bursts included). */
const JANUS_MESSAGES_PER_SECOND = 50;
/** Video sockets one member may hold at once (a few tabs). */
const SOCKETS_PER_MEMBER = 4;

export interface JanusProxyDeps {
  video: VideoService;
  /** The video sockets in the member-sockets registry (closed by revocations). */
  sockets: MemberSocketsOfKind<MemberSocket>;
  log: FastifyBaseLogger;
}

export function janusProxySocket({ video, sockets, log }: JanusProxyDeps): SocketRoute {
  const admission: Admission<{ userId: number; sessionId: string | null }> = {
    name: 'video',
    path: JANUS_PATH,
    ownOrigin: true,
    // Watching is for members who accepted the terms, as every REST call and socket command.
    access: 'member',
    // Not counted per address, as before the kit: a member's few video sockets are capped below.
    limits: {
      perAddress: false,
      perMember: {
        kind: 'video',
        max: SOCKETS_PER_MEMBER,
        memberOf: (member) => member.userId,
      },
    },
    admit: async (_request, { user, claims }) => {
      if (video.janus.wsUrl === null)
        throw new HttpError(503, 'Live video is unavailable on this server', ERROR_KEYS.notReady);
      return { userId: user.id, sessionId: claims.sessionId };
    },
  };

  return defineRawSocket(admission, (browser, member, request) => {
    const upstreamUrl = video.janus.wsUrl;
    if (upstreamUrl === null) {
      browser.close(1011, 'not admitted');
      return;
    }
    const janus = new WebSocket(upstreamUrl, JANUS_SUBPROTOCOL, { maxPayload: 1024 * 1024 });
    const unregister = sockets.add(request, {
      userId: member.userId,
      loginSessionId: member.sessionId,
      revoke: ({ code, reason }) => {
        if (browser.readyState === WebSocket.OPEN) browser.close(code, reason);
        // Janus's side goes at once (it destroys that transport's sessions, and their
        // PeerConnections), without waiting for the browser to answer the close.
        janus.terminate();
      },
    });
    const rate = new MessageRateLimit(JANUS_MESSAGES_PER_SECOND);
    const guard = new JanusSocketGuard();
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
      const refused = guard.check(message);
      if (refused) {
        reply(message.transaction, refused);
        return;
      }
      if (janus.readyState === WebSocket.OPEN) janus.send(text);
      else pending.push(text);
    });

    janus.on('open', () => {
      for (const text of pending.splice(0)) janus.send(text);
    });
    janus.on('message', (data) => {
      const text = data.toString();
      try {
        const answer = JSON.parse(text) as JanusAnswer | null;
        if (typeof answer === 'object' && answer !== null) guard.observe(answer);
      } catch {
        // Janus only sends JSON; forward whatever it is.
      }
      if (browser.readyState === WebSocket.OPEN) browser.send(text);
    });

    const closeBoth = () => {
      if (browser.readyState === WebSocket.OPEN) browser.close(1011, 'video gateway closed');
      if (janus.readyState === WebSocket.OPEN || janus.readyState === WebSocket.CONNECTING) janus.terminate();
    };
    janus.on('close', closeBoth);
    janus.on('error', (error) => {
      log.warn({ err: error }, 'janus websocket error');
      closeBoth();
    });
    browser.on('error', () => closeBoth());
    browser.on('close', () => {
      // Janus destroys the sessions of a transport that goes away.
      unregister();
      if (janus.readyState === WebSocket.OPEN || janus.readyState === WebSocket.CONNECTING) janus.close();
    });
  });
}
