import { BROWSER_PROTOCOL_VERSION, IDLE_RACE_STATE, SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket, fakeSocketFactory } from '../test/fake-socket';
import { tokenFor } from '../test/fake-token';
import { EventSocketManager } from './event-socket';
import { OutdatedPage } from './outdated-page';

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

  it('says its protocol version on open, then asks for the current state and pings', () => {
    manager().connect('t1');
    FakeSocket.last.serverOpen();
    expect(FakeSocket.last.messages[0]).toEqual({ type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION });
    expect(FakeSocket.last.messages.map((m) => m.type)).toEqual(['hello', 'get_current_state', 'ping']);
  });

  it.each(['client_too_old', 'server_too_old'] as const)(
    'reports incompatible {reason: %s} to the page and does not come back after the 4002 close',
    (reason) => {
      const outdated = new OutdatedPage();
      const events = new EventSocketManager({ createSocket: fakeSocketFactory, location, outdated });
      events.connect('t1');
      FakeSocket.last.serverOpen();
      FakeSocket.last.serverSend({ type: 'incompatible', reason, supported: { min: 2, max: 3 } });
      FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.incompatible, reason);
      expect(outdated.getState()).toEqual({ reason });
      vi.advanceTimersByTime(60_000);
      expect(FakeSocket.instances).toHaveLength(1);
    },
  );

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
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: IDLE_RACE_STATE });
    FakeSocket.last.serverSend('not json');
    expect(error).toHaveBeenCalledTimes(1);
    unsubscribe();
    FakeSocket.last.serverSend({ type: 'auth_ok', expiresAt: '2026-01-01T10:15:00.000Z' });
    expect(a.mock.calls.map(([m]) => m.type)).toEqual(['race_state_update', 'auth_ok']);
    expect(b.mock.calls.map(([m]) => m.type)).toEqual(['race_state_update']);
  });

  it('drops, with a warning, messages the protocol does not define', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const events = manager();
    const listener = vi.fn();
    events.subscribe(listener);
    events.connect('t1');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'confetti' });
    FakeSocket.last.serverSend({ type: 'pong', timestamp: 'soon' });
    FakeSocket.last.serverSend({ payload: {} });
    expect(listener).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(3);
    expect(events.latency).toBeNull();
    expect(FakeSocket.last.messages.map((m) => m.type)).toEqual(['hello', 'get_current_state', 'ping']);
  });

  it('keeps handing messages to the other subscribers when one throws', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const events = manager();
    const after = vi.fn();
    events.subscribe(() => {
      throw new Error('boom');
    });
    events.subscribe(after);
    events.connect('t1');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'race_state_update', payload: IDLE_RACE_STATE });
    expect(after).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledTimes(1);
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

describe('EventSocketManager and the access token (the server closes a socket whose token expired)', () => {
  beforeEach(() => {
    FakeSocket.reset();
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T10:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  /** A manager on the mocked clock, with the auth client's token and refresh faked. */
  function withAuth(current: { token: string | null } = { token: null }) {
    const renewToken = vi.fn<() => Promise<string>>();
    const events = new EventSocketManager({
      createSocket: fakeSocketFactory,
      location,
      getAccessToken: () => current.token,
      renewToken,
    });
    return { events, renewToken, current };
  }
  const auths = (socket: FakeSocket) => socket.messages.filter((m) => m.type === 'auth');

  it('hands a refreshed token of the same member to the open socket with auth, without reconnecting', () => {
    const { events } = withAuth();
    const first = tokenFor(7);
    events.connect(first);
    FakeSocket.last.serverOpen();
    vi.advanceTimersByTime(60_000);
    const second = tokenFor(7);
    events.connect(second);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: second }]);
    expect(events.currentToken).toBe(second);
  });

  it('sends a token refreshed while connecting once the socket opens', () => {
    const { events } = withAuth();
    events.connect(tokenFor(7));
    vi.advanceTimersByTime(1_000);
    const second = tokenFor(7);
    events.connect(second);
    expect(FakeSocket.instances).toHaveLength(1);
    FakeSocket.last.serverOpen();
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: second }]);
  });

  it("reconnects with another member's token", () => {
    const { events } = withAuth();
    events.connect(tokenFor(7));
    FakeSocket.last.serverOpen();
    const other = tokenFor(8);
    events.connect(other);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain(`token=${other}`);
  });

  it('asks for a fresh token 60 s before a 15-minute token expires and sends it with auth', async () => {
    const { events, renewToken } = withAuth();
    events.connect(tokenFor(7, 900));
    FakeSocket.last.serverOpen();
    const fresh = tokenFor(7, 900, Date.now() + 840_000);
    renewToken.mockResolvedValue(fresh);
    vi.advanceTimersByTime(839_000);
    expect(renewToken).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewToken).toHaveBeenCalledTimes(1);
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: fresh }]);
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it('renews a short token a quarter of its lifetime before it expires, with the newer token the auth client already has', async () => {
    const { events, renewToken, current } = withAuth();
    events.connect(tokenFor(7, 20));
    FakeSocket.last.serverOpen();
    vi.advanceTimersByTime(14_000);
    // Another request refreshed the token in the meantime without this socket hearing of it.
    current.token = tokenFor(7, 20);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewToken).not.toHaveBeenCalled();
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: current.token }]);
  });

  it('after a tokenExpired close, reconnects at once with a fresh token', async () => {
    const { events, renewToken } = withAuth();
    const expired = tokenFor(7, 10);
    events.connect(expired);
    FakeSocket.last.serverOpen();
    vi.setSystemTime(Date.now() + 11_000);
    const fresh = tokenFor(7);
    renewToken.mockResolvedValue(fresh);
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired');
    await vi.advanceTimersByTimeAsync(0);
    expect(renewToken).toHaveBeenCalledTimes(1);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain(`token=${fresh}`);
  });

  it('after a lost connection, renews an expired token before reconnecting', async () => {
    const { events, renewToken } = withAuth();
    events.connect(tokenFor(7, 10));
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(1006);
    vi.setSystemTime(Date.now() + 11_000);
    const fresh = tokenFor(7);
    renewToken.mockResolvedValue(fresh);
    await vi.advanceTimersByTimeAsync(100);
    expect(renewToken).toHaveBeenCalledTimes(1);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain(`token=${fresh}`);
  });

  it('does not come back after a sessionRevoked close (the user logged out)', () => {
    const { events, renewToken } = withAuth();
    events.connect(tokenFor(7));
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.sessionRevoked, 'session revoked');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(renewToken).not.toHaveBeenCalled();
  });

  it('comes back after a roleChanged close, with the backoff', () => {
    const { events } = withAuth();
    events.connect(tokenFor(7));
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.roleChanged, 'role changed');
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(2);
  });

  it('stops renewing once disconnected', async () => {
    const { events, renewToken } = withAuth();
    events.connect(tokenFor(7, 900));
    FakeSocket.last.serverOpen();
    events.disconnect();
    await vi.advanceTimersByTimeAsync(900_000);
    expect(renewToken).not.toHaveBeenCalled();
  });
});
