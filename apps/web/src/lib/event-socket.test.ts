import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket, fakeSocketFactory } from '../test/fake-socket';
import { EventSocketManager } from './event-socket';

const location = { protocol: 'http:', host: 'race.test' };

function manager(now = () => 1_000) {
  return new EventSocketManager({ createSocket: fakeSocketFactory, location, now });
}

beforeEach(() => {
  FakeSocket.reset();
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('EventSocketManager', () => {
  it('connects to /api/race-ws with the token, wss on https', () => {
    manager().connect('tok en');
    expect(FakeSocket.last.url).toBe('ws://race.test/api/race-ws?token=tok+en');
    new EventSocketManager({
      createSocket: fakeSocketFactory,
      location: { protocol: 'https:', host: 'race.test' },
    }).connect('t');
    expect(FakeSocket.last.url).toBe('wss://race.test/api/race-ws?token=t');
  });

  it('sends get_current_state on open, then pings', () => {
    manager().connect('t1');
    FakeSocket.last.serverOpen();
    expect(FakeSocket.last.messages.map((m) => m.type)).toEqual(['get_current_state', 'ping']);
  });

  it('ignores a connect with the token already in use', () => {
    const events = manager();
    events.connect('t1');
    events.connect('t1');
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it('replaces the connection when the token changes', () => {
    const events = manager();
    events.connect('t1');
    const first = FakeSocket.last;
    first.serverOpen();
    events.connect('t2');
    expect(FakeSocket.instances).toHaveLength(2);
    expect(first.closedWith).not.toBeNull();
    expect(FakeSocket.last.url).toContain('token=t2');
    expect(events.currentToken).toBe('t2');
  });

  it('drops sends while not open, with a warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const events = manager();
    events.send({ type: 'get_current_state' });
    events.connect('t1');
    events.send({ type: 'get_current_state' });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(FakeSocket.last.sent).toEqual([]);
  });

  it('measures latency every 2 s and reports it with ping_update', () => {
    let clock = 10_000;
    const events = manager(() => clock);
    events.connect('t1');
    const socket = FakeSocket.last;
    socket.serverOpen();
    expect(socket.messages.at(-1)).toEqual({ type: 'ping', timestamp: 10_000 });
    clock = 10_042;
    socket.serverSend({ type: 'pong', timestamp: 10_000 });
    expect(events.latency).toBe(42);
    expect(socket.messages.at(-1)).toEqual({ type: 'ping_update', latency: 42 });
    clock = 12_000;
    vi.advanceTimersByTime(2_000);
    expect(socket.messages.at(-1)).toEqual({ type: 'ping', timestamp: 12_000 });
  });

  it('hands every message to every subscriber and only logs unreadable ones', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const events = manager();
    const a = vi.fn();
    const b = vi.fn();
    events.subscribe(a);
    const unsubscribe = events.subscribe(b);
    events.connect('t1');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: { race_status: 'idle' } });
    FakeSocket.last.serverSend('not json');
    expect(error).toHaveBeenCalledTimes(1);
    unsubscribe();
    FakeSocket.last.serverSend({ type: 'server_busy' });
    expect(a.mock.calls.map(([m]) => m.type)).toEqual(['race_state_update', 'server_busy']);
    expect(b.mock.calls.map(([m]) => m.type)).toEqual(['race_state_update']);
  });

  it('clears the connection state on close and reconnects with the backoff', () => {
    const events = manager();
    events.connect('t1');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose();
    expect(events.isOpen).toBe(false);
    expect(events.latency).toBeNull();
    expect(FakeSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain('token=t1');
  });

  it('disconnect closes and forgets the token, with no reconnect', () => {
    const events = manager();
    events.connect('t1');
    const socket = FakeSocket.last;
    socket.serverOpen();
    events.disconnect();
    expect(socket.closedWith?.code).toBe(1000);
    expect(events.currentToken).toBeNull();
    vi.advanceTimersByTime(10_000);
    expect(FakeSocket.instances).toHaveLength(1);
    events.connect('t1');
    expect(FakeSocket.instances).toHaveLength(2);
  });
});

describe('EventSocketManager after a force_disconnect close', () => {
  beforeEach(() => {
    FakeSocket.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('does not reconnect with the revoked token', () => {
    const events = manager();
    events.connect('t1');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(4004, 'banned');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
  });
});
