/**
 * The kit's keepalive on the injected clock, with real `ws` clients, in the shape of each socket
 * that uses it (event, controller, car): a peer whose last message falls anywhere in a ping
 * period and that then goes quiet is never dropped while it answers pings, and is dropped within
 * the silence limit and one period of its last message when it does not — never without a ping
 * it had a period to answer (issue 39: an event socket quiet from 8 s on was dropped at 30 s,
 * never pinged).
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { CAR_KEEPALIVE, CONTROLLER_KEEPALIVE } from '../modules/control/control.sockets.js';
import { EVENT_KEEPALIVE } from '../modules/race-feed/race-feed.socket.js';
import { ManualClock } from '../test/clock.js';
import { listen, settle } from '../test/sockets.js';
import { defineSocket, registerSockets } from './define-socket.js';
import { MemberSockets } from './member-sockets.js';
import { newDropCounters } from './message-guard.js';
import { messageTable } from './message-table.js';
import { SocketAdmission } from './socket-admission.js';
import type { Keepalive, SocketConnection } from './socket-connection.js';
import { SocketMeter } from './socket-meter.js';

const SHAPES: Record<string, Keepalive> = {
  event: EVENT_KEEPALIVE,
  controller: CONTROLLER_KEEPALIVE,
  car: CAR_KEEPALIVE,
};

const Hello = z.discriminatedUnion('type', [z.object({ type: z.literal('hello') })]);

const clock = new ManualClock();
let app: FastifyInstance;
let host: string;

beforeAll(async () => {
  app = Fastify();
  await app.register(websocket);
  registerSockets(
    app,
    Object.entries(SHAPES).map(([name, keepalive]) =>
      defineSocket({
        name,
        path: `/${name}`,
        ownOrigin: false,
        access: 'custom',
        limits: { perAddress: false },
        admit: async () => null,
        open: (connection) => connection,
        messages: messageTable<SocketConnection, z.infer<typeof Hello>>(Hello, {
          hello: (connection) => connection.send({ type: 'hello' }),
        }),
        keepalive,
        dropped: newDropCounters(),
      }),
    ),
    {
      publicUrl: 'http://localhost',
      authenticator: { member: async () => Promise.reject(new Error('no members here')) },
      places: new SocketAdmission(100),
      memberSockets: new MemberSockets(),
      meter: new SocketMeter(),
      keepaliveClock: clock,
    },
  );
  host = await listen(app);
});
afterAll(() => app.close());

/** A client that pongs the server's pings (as every client library does) or not, noting when they came. */
class Peer {
  readonly pingedAt: number[] = [];
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('ping', () => this.pingedAt.push(clock.now().getTime()));
    ws.on('close', () => {
      this.closed = true;
    });
  }

  static open(path: string, answersPings: boolean): Promise<Peer> {
    const ws = new WebSocket(`ws://${host}${path}`, { autoPong: answersPings });
    const peer = new Peer(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(peer));
      ws.once('error', reject);
    });
  }

  /** Says hello, and waits until the server has read it (its answer is back). */
  async hello(): Promise<void> {
    const answered = new Promise((resolve) => this.ws.once('message', resolve));
    this.ws.send(JSON.stringify({ type: 'hello' }));
    await answered;
  }
}

/** Where in a period the last message falls: a spread over the period, and its edges. */
function phasesOf(pingMs: number): number[] {
  const spread = Array.from({ length: 20 }, (_, step) => Math.round((step * pingMs) / 20));
  return [...new Set([...spread, 1, pingMs - 6, pingMs - 5, pingMs - 4, pingMs - 1])].sort((a, b) => a - b);
}

/**
 * Opens a peer, has it say hello `phase` ms in (its last message), then moves the clock a period
 * at a time — the server's checks run once a period from the socket's opening — until the peer is
 * dropped or `silenceMs` and three periods have passed. Returns the peer and when it was dropped.
 */
async function quietAfter(name: string, phase: number, answersPings: boolean) {
  const { pingMs, silenceMs } = SHAPES[name] as Keepalive;
  const peer = await Peer.open(`/${name}`, answersPings);
  const openedAt = clock.now().getTime();
  clock.advance(phase);
  await peer.hello();
  const lastMessageAt = clock.now().getTime();
  clock.advance(pingMs - phase);
  await settle(peer.ws);
  while (!peer.closed && clock.now().getTime() - lastMessageAt <= silenceMs + 3 * pingMs) {
    clock.advance(pingMs);
    await settle(peer.ws);
  }
  const droppedAt = peer.closed ? clock.now().getTime() : null;
  peer.ws.terminate();
  return { peer, openedAt, lastMessageAt, droppedAt };
}

describe.each(Object.keys(SHAPES))('the keepalive of a %s socket', (name) => {
  const { pingMs, silenceMs } = SHAPES[name] as Keepalive;

  it('never drops a quiet peer that answers its pings, wherever in the period its last message fell', async () => {
    for (const phase of phasesOf(pingMs)) {
      const { peer, droppedAt } = await quietAfter(name, phase, true);
      expect({ phase, droppedAt }).toEqual({ phase, droppedAt: null });
      expect(peer.pingedAt.length).toBeGreaterThan(0);
    }
  });

  it('drops a peer that answers no ping within the limit and a period, after a ping it had a period to answer', async () => {
    for (const phase of phasesOf(pingMs)) {
      const { peer, lastMessageAt, droppedAt } = await quietAfter(name, phase, false);
      expect(droppedAt, `phase ${phase}`).not.toBeNull();
      const dropped = droppedAt as number;
      expect(dropped - lastMessageAt, `phase ${phase}`).toBeGreaterThan(silenceMs);
      expect(dropped - lastMessageAt, `phase ${phase}`).toBeLessThanOrEqual(silenceMs + pingMs);
      expect(
        peer.pingedAt.some((at) => at > lastMessageAt && at <= dropped - pingMs),
        `phase ${phase}`,
      ).toBe(true);
    }
  });
});
