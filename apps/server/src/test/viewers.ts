/**
 * Members watching a car through the server's `/janus` proxy as the control page's player does,
 * each with a real WebRTC peer (werift) that counts the RTP it really receives.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestSocket } from './sockets.js';
import { janusAnswer, openJanusSocket } from './video.js';
import { WebRtcViewer } from './webrtc.js';

export interface Viewer {
  janus: TestSocket;
  session: number;
  handle: number;
  offer: { type: string; sdp: string };
}

/** The car's stream id and the PIN its status gives these headers (null: not theirs to watch). */
export async function carVideo(app: FastifyInstance, carId: number, headers: Record<string, string>) {
  const response = await app.inject({ method: 'GET', url: `/api/cars/${carId}/status`, headers });
  expect(response.statusCode, response.body).toBe(200);
  const car = response.json() as { stream_id: number; video?: { pin: string | null } };
  return { streamId: car.stream_id, pin: car.video?.pin ?? null };
}

export function janusViewers(app: FastifyInstance, host: string) {
  const peers: WebRtcViewer[] = [];

  /** Attaches a streaming handle on the socket (creating its session the first time). */
  async function attach(janus: TestSocket, session?: number): Promise<{ session: number; handle: number }> {
    let id = session;
    if (id === undefined) {
      const transaction = randomUUID();
      janus.send({ janus: 'create', transaction });
      const created = await janusAnswer(janus, transaction);
      expect(created.janus).toBe('success');
      id = (created.data as { id: number }).id;
    }
    const transaction = randomUUID();
    janus.send({ janus: 'attach', plugin: 'janus.plugin.streaming', session_id: id, transaction });
    const attached = await janusAnswer(janus, transaction);
    expect(attached.janus).toBe('success');
    return { session: id, handle: (attached.data as { id: number }).id };
  }

  /** Asks to watch, as janus.js does: Janus's offer, or the plugin's error code. */
  async function watch(janus: TestSocket, session: number, handle: number, streamId: number, pin: string) {
    const transaction = randomUUID();
    janus.send({
      janus: 'message',
      session_id: session,
      handle_id: handle,
      transaction,
      body: { request: 'watch', id: streamId, pin },
    });
    const reply = await janusAnswer(janus, transaction);
    const data = (reply.plugindata as { data?: { error_code?: number } } | undefined)?.data;
    if (typeof data?.error_code === 'number') return data.error_code;
    expect(reply).toMatchObject({ janus: 'event', jsep: { type: 'offer' } });
    return reply.jsep as { type: string; sdp: string };
  }

  /** A member's browser asking to watch the car, the way the control page's player does. */
  async function watcher(token: string, streamId: number, pin: string): Promise<Viewer> {
    const janus = await openJanusSocket(app, host, token);
    const { session, handle } = await attach(janus);
    const offer = await watch(janus, session, handle, streamId, pin);
    if (typeof offer === 'number') throw new Error(`Janus refused the watch: ${offer}`);
    return { janus, session, handle, offer };
  }

  /** A real WebRTC peer answers the viewer's offer and starts; resolves once it is connected. */
  async function start(viewer: Viewer): Promise<WebRtcViewer> {
    const peer = new WebRtcViewer();
    peers.push(peer);
    const transaction = randomUUID();
    viewer.janus.send({
      janus: 'message',
      session_id: viewer.session,
      handle_id: viewer.handle,
      transaction,
      body: { request: 'start' },
      jsep: await peer.answer(viewer.offer),
    });
    expect(await janusAnswer(viewer.janus, transaction)).toMatchObject({ janus: 'event' });
    return peer;
  }

  /** `start`, then waits until RTP flows to the peer. */
  async function receive(viewer: Viewer): Promise<WebRtcViewer> {
    const peer = await start(viewer);
    await expect.poll(() => peer.packets, { timeout: 10_000 }).toBeGreaterThan(10);
    return peer;
  }

  return {
    attach,
    watch,
    watcher,
    start,
    receive,
    close: () => Promise.all(peers.map((peer) => peer.close())),
  };
}
