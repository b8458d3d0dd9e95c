import { Backoff } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { FakeSocket, fakeSocketFactory } from '../test/fake-socket';
import {
  type AttemptContext,
  ReconnectingSocket,
  type ReconnectingSocketOptions,
  type SocketClose,
} from './reconnecting-socket';

const Incoming = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), n: z.number() }),
  z.object({ type: z.literal('bye') }),
]);
type Incoming = z.infer<typeof Incoming>;

const TERMINAL = 4001;
const AT_ONCE = 4005;

function reconnecting(overrides: Partial<ReconnectingSocketOptions<Incoming>> = {}) {
  const received: Incoming[] = [];
  const closes: SocketClose[] = [];
  const contexts: AttemptContext[] = [];
  let opens = 0;
  let attempt = 0;
  const socket = new ReconnectingSocket<Incoming, { type: string }>({
    name: 'Test socket',
    url: (context) => {
      contexts.push(context);
      attempt += 1;
      return `ws://race.test/s?attempt=${attempt}`;
    },
    schema: Incoming,
    terminalCloseCodes: new Set([TERMINAL]),
    retryAtOnceCloseCodes: new Set([AT_ONCE]),
    closeReason: 'page left',
    onOpen: () => {
      opens += 1;
    },
    onMessage: (message) => received.push(message),
    onClose: (close) => closes.push(close),
    createSocket: fakeSocketFactory,
    // Exact delays (100, 200, 400…); the default's jitter has its own tests below.
    backoff: new Backoff(),
    ...overrides,
  });
  return { socket, received, closes, contexts, opens: () => opens };
}

beforeEach(() => {
  FakeSocket.reset();
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ReconnectingSocket: connecting and sending', () => {
  it('opens at the address of the attempt and tells when it is open', () => {
    const { socket, opens } = reconnecting();
    expect(socket.isRunning).toBe(false);
    socket.start();
    expect(FakeSocket.last.url).toBe('ws://race.test/s?attempt=1');
    expect(socket.isRunning).toBe(true);
    expect(socket.hasSocket).toBe(true);
    expect(socket.isOpen).toBe(false);
    FakeSocket.last.serverOpen();
    expect(socket.isOpen).toBe(true);
    expect(opens()).toBe(1);
  });

  it('starting twice opens one socket', () => {
    const { socket } = reconnecting();
    socket.start();
    socket.start();
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it('sends JSON only while open, and says whether it sent', () => {
    const { socket } = reconnecting();
    expect(socket.send({ type: 'early' })).toBe(false);
    socket.start();
    expect(socket.send({ type: 'connecting' })).toBe(false);
    FakeSocket.last.serverOpen();
    expect(socket.send({ type: 'open' })).toBe(true);
    FakeSocket.last.serverClose();
    expect(socket.send({ type: 'closed' })).toBe(false);
    expect(FakeSocket.instances[0]?.messages).toEqual([{ type: 'open' }]);
  });
});

describe('ReconnectingSocket: reconnecting', () => {
  it('tries again after 100, 200, 400 ms, and from 100 ms again once a socket opened', () => {
    const { socket } = reconnecting();
    socket.start();
    for (const delay of [100, 200, 400]) {
      const before = FakeSocket.instances.length;
      FakeSocket.last.serverClose();
      vi.advanceTimersByTime(delay - 1);
      expect(FakeSocket.instances).toHaveLength(before);
      vi.advanceTimersByTime(1);
      expect(FakeSocket.instances).toHaveLength(before + 1);
    }
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(5);
  });

  it('caps the delay at 8 s however long the server stays away', () => {
    const { socket } = reconnecting();
    socket.start();
    for (let i = 0; i < 12; i += 1) {
      FakeSocket.last.serverClose();
      vi.advanceTimersByTime(8_000);
    }
    expect(FakeSocket.instances).toHaveLength(13);
  });

  it('reads the address again for each attempt, with the close that led to it', () => {
    const { socket, contexts } = reconnecting();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(1006, 'gone');
    vi.advanceTimersByTime(100);
    expect(FakeSocket.last.url).toBe('ws://race.test/s?attempt=2');
    expect(contexts).toEqual([
      { after: null },
      { after: { code: 1006, reason: 'gone', opened: true, final: false } },
    ]);
  });

  it('reports each close, with whether the socket had opened', () => {
    const { socket, closes } = reconnecting();
    socket.start();
    FakeSocket.last.serverClose(1006);
    vi.advanceTimersByTime(100);
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(1011, 'restart');
    expect(closes).toEqual([
      { code: 1006, reason: '', opened: false, final: false },
      { code: 1011, reason: 'restart', opened: true, final: false },
    ]);
  });

  it('stops for good after a terminal close code', () => {
    const { socket, closes } = reconnecting();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(TERMINAL, 'session over');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(socket.isRunning).toBe(false);
    expect(closes).toEqual([{ code: TERMINAL, reason: 'session over', opened: true, final: true }]);
    socket.start();
    expect(FakeSocket.instances).toHaveLength(2);
  });

  it('tries again at once after a close its owner marked so, without spending a backoff step', () => {
    const { socket, contexts } = reconnecting();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(AT_ONCE, 'token expired');
    expect(FakeSocket.instances).toHaveLength(2);
    expect(contexts.at(-1)?.after?.code).toBe(AT_ONCE);
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(3);
  });

  it('an owner closing from its close callback is not reconnected', () => {
    const { socket } = reconnecting({ onClose: () => socket.close() });
    socket.start();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
  });
});

describe('ReconnectingSocket: addresses that take time or fail', () => {
  it('waits for an address given as a promise', async () => {
    let resolve: (url: string) => void = () => {};
    const { socket } = reconnecting({ url: () => new Promise<string>((done) => (resolve = done)) });
    socket.start();
    expect(FakeSocket.instances).toHaveLength(0);
    resolve('ws://race.test/later');
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.last.url).toBe('ws://race.test/later');
  });

  it('does not use an address that arrives after close', async () => {
    let resolve: (url: string) => void = () => {};
    const { socket } = reconnecting({ url: () => new Promise<string>((done) => (resolve = done)) });
    socket.start();
    socket.close();
    resolve('ws://race.test/late');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeSocket.instances).toHaveLength(0);
  });

  it('only uses the newest attempt after a close and a start', async () => {
    const pending: Array<(url: string) => void> = [];
    const { socket } = reconnecting({ url: () => new Promise<string>((done) => pending.push(done)) });
    socket.start();
    socket.close();
    socket.start();
    pending[0]?.('ws://race.test/first');
    pending[1]?.('ws://race.test/second');
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.instances.map((s) => s.url)).toEqual(['ws://race.test/second']);
  });

  it('without an address now (null), tries again after the backoff', () => {
    const answers: Array<string | null> = [null, null, 'ws://race.test/at-last'];
    const { socket } = reconnecting({ url: () => answers.shift() ?? null });
    socket.start();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(0);
    vi.advanceTimersByTime(200);
    expect(FakeSocket.last.url).toBe('ws://race.test/at-last');
  });

  it('logs an address that failed and tries again after the backoff', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    let calls = 0;
    const { socket } = reconnecting({
      url: () => {
        calls += 1;
        if (calls === 1) throw new Error('no token');
        if (calls === 2) return Promise.reject(new Error('refresh failed'));
        return 'ws://race.test/ok';
      },
    });
    socket.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeSocket.instances).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(FakeSocket.last.url).toBe('ws://race.test/ok');
    expect(error).toHaveBeenCalledTimes(2);
  });
});

describe('ReconnectingSocket: incoming messages', () => {
  it('hands on the messages the schema accepts, parsed', () => {
    const { socket, received } = reconnecting();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'hello', n: 1 });
    FakeSocket.last.serverSend({ type: 'bye' });
    expect(received).toEqual([{ type: 'hello', n: 1 }, { type: 'bye' }]);
  });

  it('logs and drops what is not JSON, and what the schema refuses', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { socket, received } = reconnecting();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend('{not json');
    FakeSocket.last.serverSend({ type: 'hello', n: 'one' });
    FakeSocket.last.serverSend({ type: 'unknown' });
    FakeSocket.last.serverSend([1, 2]);
    FakeSocket.last.serverSend({ type: 'hello', n: 2 });
    expect(received).toEqual([{ type: 'hello', n: 2 }]);
    expect(error).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(socket.isOpen).toBe(true);
  });

  it('logs a handler that throws and keeps going', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: number[] = [];
    const { socket } = reconnecting({
      onMessage: (message) => {
        if (message.type === 'hello' && message.n === 1) throw new Error('boom');
        if (message.type === 'hello') seen.push(message.n);
      },
    });
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'hello', n: 1 });
    FakeSocket.last.serverSend({ type: 'hello', n: 2 });
    expect(seen).toEqual([2]);
    expect(error).toHaveBeenCalledTimes(1);
  });
});

describe('ReconnectingSocket: closing', () => {
  it('closes with 1000 and its reason, reports nothing, and does not come back', () => {
    const { socket, closes } = reconnecting();
    socket.start();
    const first = FakeSocket.last;
    first.serverOpen();
    socket.close();
    expect(first.closedWith).toEqual({ code: 1000, reason: 'page left' });
    expect(socket.isRunning).toBe(false);
    expect(socket.hasSocket).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(closes).toEqual([]);
  });

  it('ignores what the closed socket still reports', () => {
    const { socket, received, closes } = reconnecting();
    socket.start();
    const first = FakeSocket.last;
    first.serverOpen();
    const { onmessage, onclose } = first;
    socket.close();
    onmessage?.(new MessageEvent('message', { data: '{"type":"bye"}' }));
    onclose?.(new CloseEvent('close', { code: 1006 }));
    expect(received).toEqual([]);
    expect(closes).toEqual([]);
  });

  it('cancels a pending retry and starts over from the first delay', () => {
    const { socket } = reconnecting();
    socket.start();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    FakeSocket.last.serverClose();
    socket.close();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(2);
    socket.start();
    expect(FakeSocket.instances).toHaveLength(3);
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(4);
  });
});

describe('ReconnectingSocket: the default backoff has jitter', () => {
  it.each([0, 0.5, 0.999])('with Math.random() = %s, tries again within 75–100 ms', (random) => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    const { socket } = reconnecting({ backoff: undefined });
    socket.start();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(74);
    expect(FakeSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(26);
    expect(FakeSocket.instances).toHaveLength(2);
  });

  it('spreads the sockets a server restart dropped at the same instant', () => {
    const sockets = Array.from({ length: 20 }, () => reconnecting({ backoff: undefined }).socket);
    for (const socket of sockets) socket.start();
    for (const fake of [...FakeSocket.instances]) fake.serverClose();
    const times = new Set<number>();
    for (let ms = 1; ms <= 100; ms += 1) {
      const before = FakeSocket.instances.length;
      vi.advanceTimersByTime(1);
      if (FakeSocket.instances.length > before) times.add(ms);
    }
    expect(FakeSocket.instances).toHaveLength(40);
    expect(times.size).toBeGreaterThan(1);
  });
});
