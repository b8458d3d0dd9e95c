/**
 * The socket kit on its own: a socket declared with defineSocket on a bare Fastify server, driven
 * by real `ws` clients. Whatever a client gets wrong (too big, too fast, not JSON, unknown or
 * malformed message) and whatever a handler refuses comes back as the one error message
 * `{type: 'error', error, errorKey}`; a silent peer is dropped; admission limits answer 429.
 */
import websocket from '@fastify/websocket';
import { CONTROL_LIMITS, ERROR_KEYS, SOCKET_CLOSE_CODES } from '@telerace/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { systemClock } from '../clock.js';
import { DomainError } from '../domain-error.js';
import { HttpError } from '../http/errors.js';
import { listen, openSocket, refusedStatus } from '../test/sockets.js';
import { defineSocket, registerSockets } from './define-socket.js';
import { MemberSockets } from './member-sockets.js';
import { newDropCounters } from './message-guard.js';
import { messageTable } from './message-table.js';
import { SocketAdmission } from './socket-admission.js';
import type { SocketConnection } from './socket-connection.js';
import { SocketMeter } from './socket-meter.js';

const TestMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('echo'), text: z.string().max(10) }),
  z.object({ type: z.literal('refuse') }),
  z.object({ type: z.literal('crash') }),
]);
type TestMessage = z.infer<typeof TestMessage>;

const dropped = newDropCounters();
const meter = new SocketMeter();
let app: FastifyInstance;
let host: string;

function testSocket(
  path: string,
  options: { queryType?: string; keepalive?: { pingMs: number; silenceMs: number } },
) {
  return defineSocket({
    name: 'test',
    path,
    queryType: options.queryType,
    ownOrigin: false,
    access: 'custom',
    limits: { perAddress: true, perMember: { kind: 'event', max: 2, memberOf: (member: number) => member } },
    admit: async (request) => {
      const member = Number((request.query as { member?: string }).member);
      if (!Number.isInteger(member) || member <= 0)
        throw new HttpError(401, 'Who are you?', ERROR_KEYS.unauthorized);
      return member;
    },
    open: (connection) => connection,
    messages: messageTable<SocketConnection, TestMessage>(TestMessage, {
      echo: (connection, { text }) => connection.send({ type: 'echo', text }),
      refuse: () => {
        throw new DomainError('forbidden', 'Not yours', ERROR_KEYS.forbidden);
      },
      crash: async () => {
        throw new Error('database down: secret detail');
      },
    }),
    maxMessagesPerSecond: 20,
    keepalive: options.keepalive ?? { pingMs: 60_000, silenceMs: 60_000 },
    dropped,
  });
}

beforeAll(async () => {
  app = Fastify();
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  registerSockets(
    app,
    [
      testSocket('/kit', {}),
      testSocket('/shared', { queryType: 'a' }),
      testSocket('/shared', { queryType: 'b' }),
      testSocket('/quick', { keepalive: { pingMs: 50, silenceMs: 200 } }),
      // The event socket's shape (15 s period, 20 s limit), scaled down: the limit under 2 periods.
      testSocket('/tight', { keepalive: { pingMs: 60, silenceMs: 80 } }),
    ],
    {
      publicUrl: 'http://localhost',
      authenticator: { member: async () => Promise.reject(new Error('no members here')) },
      places: new SocketAdmission(100),
      memberSockets: new MemberSockets(),
      meter,
      keepaliveClock: systemClock,
    },
  );
  host = await listen(app);
});
afterAll(() => app.close());

const url = (path: string, member = 1) =>
  `ws://${host}${path}${path.includes('?') ? '&' : '?'}member=${member}`;

describe('a socket declared with the kit', () => {
  it('answers bad JSON, an unknown type and a malformed message with the one error message, and stays open', async () => {
    const socket = await openSocket(url('/kit'));
    const before = { ...dropped };
    socket.send('{not json');
    socket.send({ type: 'teleport' });
    socket.send({ type: 'echo', text: 'far too long for this' });
    socket.send({ type: 'echo', text: 'hi' });
    expect(await socket.nextOfType('echo')).toEqual({ type: 'echo', text: 'hi' });
    expect(socket.messages.slice(0, 3)).toEqual([
      { type: 'error', error: 'Not JSON', errorKey: ERROR_KEYS.validation },
      { type: 'error', error: 'Unknown message type', errorKey: ERROR_KEYS.validation },
      {
        type: 'error',
        error: 'Invalid echo message: text: Too big: expected string to have <=10 characters',
        errorKey: ERROR_KEYS.validation,
      },
    ]);
    expect(dropped.invalidJson - before.invalidJson).toBe(1);
    expect(dropped.unknownType - before.unknownType).toBe(1);
    expect(dropped.invalidMessage - before.invalidMessage).toBe(1);
    await socket.close();
  });

  it("passes on a handler's refusal with its errorKey, and hides an unexpected failure", async () => {
    const socket = await openSocket(url('/kit'));
    socket.send({ type: 'refuse' });
    expect(await socket.nextOfType('error')).toEqual({
      type: 'error',
      error: 'Not yours',
      errorKey: ERROR_KEYS.forbidden,
    });
    socket.send({ type: 'crash' });
    expect(await socket.nextOfType('error')).toEqual({
      type: 'error',
      error: 'Internal server error',
      errorKey: ERROR_KEYS.internal,
    });
    await socket.close();
  });

  it('closes a socket sending a message larger than the limit (1009), after saying why', async () => {
    const socket = await openSocket(url('/kit'));
    socket.send({ type: 'echo', text: 'x'.repeat(CONTROL_LIMITS.maxPayloadBytes) });
    expect((await socket.closed).code).toBe(1009);
    expect(socket.messages).toEqual([
      { type: 'error', error: 'Message too big', errorKey: ERROR_KEYS.validation },
    ]);
  });

  it('closes a socket sending more messages per second than declared (policy), after saying why', async () => {
    const socket = await openSocket(url('/kit'));
    const before = dropped.rateLimited;
    for (let i = 0; i < 30; i += 1) socket.send({ type: 'echo', text: `${i}` });
    expect((await socket.closed).code).toBe(SOCKET_CLOSE_CODES.policy);
    expect(socket.messages.filter((m) => m.type === 'echo')).toHaveLength(20);
    expect(socket.messages.at(-1)).toEqual({
      type: 'error',
      error: 'Too many messages',
      errorKey: ERROR_KEYS.tooManyRequests,
    });
    expect(dropped.rateLimited).toBe(before + 1);
  });

  it('drops a peer that answers no ping, and keeps one that does', async () => {
    const silent = new WebSocket(url('/quick'), { autoPong: false });
    const answering = await openSocket(url('/quick', 2));
    const closed = await new Promise<number>((resolve) => silent.on('close', (code) => resolve(code)));
    // Terminated without a close frame: nothing more could reach a silent peer.
    expect(closed).toBe(1006);
    expect(answering.ws.readyState).toBe(WebSocket.OPEN);
    await answering.close();
  });

  it('keeps a quiet peer whose pongs come back late: it is pinged every period, not every other one', async () => {
    // Pongs 20 ms after each ping, as over a real network (the limit is 80 ms, a period 60 ms).
    const slow = new WebSocket(url('/tight', 5), { autoPong: false });
    let pings = 0;
    slow.on('ping', () => {
      pings += 1;
      setTimeout(() => slow.pong(), 20);
    });
    let closed = false;
    slow.on('close', () => {
      closed = true;
    });
    // Eight periods answered late (480 ms, six times the limit): never dropped.
    await expect.poll(() => pings, { timeout: 5_000 }).toBeGreaterThanOrEqual(8);
    expect(closed).toBe(false);
    slow.close();
  });

  it('pings a quiet peer each period, and never a peer that keeps talking', async () => {
    const quiet = await openSocket(url('/quick', 3));
    const talking = await openSocket(url('/quick', 4));
    const pings = { quiet: 0, talking: 0 };
    quiet.ws.on('ping', () => {
      pings.quiet += 1;
    });
    talking.ws.on('ping', () => {
      pings.talking += 1;
    });
    // ~400 ms = 8 ping periods, the talking peer sending every 21 ms (within its 20 per second). A
    // ping may only reach it where this process itself paused for most of a period.
    let sentAt = performance.now();
    let pauses = 0;
    for (let i = 0; i < 19; i++) {
      talking.send({ type: 'echo', text: 'hi' });
      await new Promise((resolve) => setTimeout(resolve, 21));
      const now = performance.now();
      if (now - sentAt > 40) pauses += 1;
      sentAt = now;
    }
    expect(pings.quiet).toBeGreaterThanOrEqual(3);
    expect(pings.talking).toBeLessThanOrEqual(pauses);
    await quiet.close();
    await talking.close();
  });
  it('refuses before the upgrade: no member (401), past the per-member cap (429)', async () => {
    expect(await refusedStatus(openSocket(`ws://${host}/kit`))).toBe(401);
    const first = await openSocket(url('/kit', 7));
    const second = await openSocket(url('/kit', 7));
    expect(await refusedStatus(openSocket(url('/kit', 7)))).toBe(429);
    await Promise.all([first.close(), second.close()]);
  });

  it('counts its open sockets and the messages in and out under its name, with its drop counters', async () => {
    const traffic = meter.kinds().get('test');
    expect(traffic?.dropped).toBe(dropped);
    const before = { ...traffic };
    const socket = await openSocket(url('/kit', 11));
    expect(traffic?.open).toBe((before.open ?? 0) + 1);
    socket.send({ type: 'echo', text: 'one' });
    socket.send('{not json');
    socket.send({ type: 'echo', text: 'two' });
    expect(await socket.nextOfType('echo')).toEqual({ type: 'echo', text: 'one' });
    expect(await socket.nextOfType('echo')).toEqual({ type: 'echo', text: 'two' });
    expect(traffic?.received).toBe((before.received ?? 0) + 3);
    // Both echoes and the error message.
    expect(traffic?.sent).toBe((before.sent ?? 0) + 3);
    await socket.close();
    await expect.poll(() => traffic?.open).toBe(before.open);
  });

  it('tells sockets sharing a path apart by ?type=, and refuses another type (400)', async () => {
    const a = await openSocket(url('/shared?type=a', 3));
    a.send({ type: 'echo', text: 'a' });
    expect(await a.nextOfType('echo')).toEqual({ type: 'echo', text: 'a' });
    expect(await refusedStatus(openSocket(url('/shared?type=c', 3)))).toBe(400);
    await a.close();
  });
});
