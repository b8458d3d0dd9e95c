import {
  Backoff,
  BROWSER_PROTOCOL_VERSION,
  DRIVE_CHANNEL,
  ERROR_KEYS,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakePeer, fakePeerFactory } from '../test/fake-peer';
import { FakeSocket, fakeSocketFactory } from '../test/fake-socket';
import { tokenFor } from '../test/fake-token';
import { ControlSocket, type ControlState } from './control-socket';
import { OutdatedPage } from './outdated-page';

const location = { protocol: 'https:', host: 'race.test' };
let clock = 0;
/** The page's idle moment the first ping waits for (whenIdle), run by the test. */
let pageIdle: (() => void) | null = null;

function control(accessToken = 'acc-1') {
  let token = accessToken;
  const socket = new ControlSocket({
    carId: 3,
    controlToken: 'ctl/1',
    getAccessToken: () => token,
    createSocket: fakeSocketFactory,
    location,
    now: () => clock,
    // The spec's exact delays: the jitter below them is reconnecting-socket.test.ts's subject.
    backoff: new Backoff(),
    whenIdle: (run) => {
      pageIdle = run;
      return () => {
        pageIdle = null;
      };
    },
  });
  return { socket, setToken: (next: string) => (token = next) };
}

const drives = (socket: FakeSocket) => socket.messages.filter((m) => m.type === 'drive');

beforeEach(() => {
  FakeSocket.reset();
  clock = 1_000;
  pageIdle = null;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ControlSocket', () => {
  it('connects as a controller with the car, control token and access token', () => {
    const { socket } = control();
    socket.start();
    expect(FakeSocket.last.url).toBe(
      'wss://race.test/rcsocket?type=controller&car=3&control_token=ctl%2F1&token=acc-1',
    );
    expect(socket.getState().connection).toBe('connecting');
    FakeSocket.last.serverOpen();
    expect(socket.getState().connection).toBe('connected');
  });

  it('sends drive only when the values change', () => {
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverOpen();
    expect(socket.sendDrive(1, 0)).toBe(true);
    expect(socket.sendDrive(1, 0)).toBe(false);
    socket.sendDrive(1, 0.5);
    socket.sendDrive(1, 0.5);
    socket.sendDrive(0, 0);
    socket.sendDrive(0, 0);
    socket.sendDrive(7, -9);
    // Numbered: the server applies a drive only when its number is above the last one applied.
    expect(drives(FakeSocket.last)).toEqual([
      { type: 'drive', throttle: 1, steer: 0, seq: 1 },
      { type: 'drive', throttle: 1, steer: 0.5, seq: 2 },
      { type: 'drive', throttle: 0, steer: 0, seq: 3 },
      { type: 'drive', throttle: 1, steer: -1, seq: 4 },
    ]);
  });

  it('does not send while connecting, and sends the current values again on a new connection', () => {
    const { socket } = control();
    socket.start();
    expect(socket.sendDrive(1, 0)).toBe(false);
    FakeSocket.last.serverOpen();
    expect(socket.sendDrive(1, 0)).toBe(true);
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    FakeSocket.last.serverOpen();
    expect(socket.sendDrive(1, 0)).toBe(true);
    // Numbers only grow, across connections (one the page could not send is skipped).
    expect(drives(FakeSocket.last)).toEqual([{ type: 'drive', throttle: 1, steer: 0, seq: 3 }]);
  });

  it('reconnects after 100, 200, 400… ms, back to 100 ms after a success, with the current access token', () => {
    const { socket, setToken } = control();
    const states: ControlState['connection'][] = [];
    socket.subscribe((state) => states.push(state.connection));
    socket.start();
    FakeSocket.last.serverClose();
    expect(socket.getState().connection).toBe('connecting');
    vi.advanceTimersByTime(99);
    expect(FakeSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.instances).toHaveLength(2);
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(199);
    expect(FakeSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.instances).toHaveLength(3);
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(400);
    expect(FakeSocket.instances).toHaveLength(4);
    setToken('acc-2');
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(5);
    expect(FakeSocket.last.url).toContain('token=acc-2');
    expect(states).toContain('connected');
  });

  it('stops for good: closes, no reconnect, disconnected', () => {
    const { socket } = control();
    socket.start();
    const first = FakeSocket.last;
    first.serverOpen();
    socket.stop();
    expect(first.closedWith?.code).toBe(1000);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(socket.getState().connection).toBe('disconnected');
  });

  it('says its protocol version on open; pings once the page is idle: three 300 ms apart, then every 15 s', () => {
    const { socket } = control();
    socket.start();
    const ws = FakeSocket.last;
    ws.serverOpen();
    const pings = () => ws.messages.filter((m) => m.type === 'controller-ping');
    // A round trip measured while the page still loads would measure the page, not the link.
    expect(ws.messages).toEqual([{ type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION }]);
    vi.advanceTimersByTime(5_000);
    expect(pings()).toHaveLength(0);
    clock = 6_000;
    pageIdle?.();
    expect(pings()).toEqual([{ type: 'controller-ping', timestamp: 6_000 }]);
    vi.advanceTimersByTime(299);
    expect(pings()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(pings()).toHaveLength(2);
    vi.advanceTimersByTime(300);
    expect(pings()).toHaveLength(3);
    vi.advanceTimersByTime(14_999);
    expect(pings()).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(pings()).toHaveLength(4);
    vi.advanceTimersByTime(15_000);
    expect(pings()).toHaveLength(5);
  });

  it('shows the median of the last five round trips: one slow answer does not paint it', () => {
    const { socket } = control();
    socket.start();
    const ws = FakeSocket.last;
    ws.serverOpen();
    pageIdle?.();
    const answer = (sentAt: number, ms: number) => {
      clock = sentAt + ms;
      ws.serverSend({ type: 'controller-pong', timestamp: sentAt });
      return socket.getState().pingMs;
    };
    expect(socket.getState().pingMs).toBeNull();
    expect(answer(1_000, 37)).toBe(37);
    expect(answer(2_000, 545)).toBe(37);
    expect(answer(3_000, 5)).toBe(37);
    expect(answer(4_000, 6)).toBe(6);
    expect(answer(5_000, 7)).toBe(7);
    // The link really got slower: three slow answers out of the last five move the figure.
    expect(answer(6_000, 300)).toBe(7);
    expect(answer(7_000, 310)).toBe(7);
    expect(answer(8_000, 320)).toBe(300);
  });

  it('starts the round trips over on a new connection, and sends no ping on a closed one', () => {
    const { socket } = control();
    socket.start();
    const first = FakeSocket.last;
    first.serverOpen();
    pageIdle?.();
    clock = 1_900;
    first.serverSend({ type: 'controller-pong', timestamp: 1_000 });
    expect(socket.getState().pingMs).toBe(900);
    first.serverClose(1006, '');
    expect(socket.getState().pingMs).toBeNull();
    vi.advanceTimersByTime(60_000);
    expect(first.messages.filter((m) => m.type === 'controller-ping')).toHaveLength(1);
    const second = FakeSocket.last;
    expect(second).not.toBe(first);
    second.serverOpen();
    pageIdle?.();
    clock = 70_000;
    second.serverSend({ type: 'controller-pong', timestamp: 69_990 });
    expect(socket.getState().pingMs).toBe(10);
  });

  it('keeps telemetry, the car status and errors, and ignores unknown messages', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'telemetry', telemetry: { speed: 1.234, battery: 87 } });
    FakeSocket.last.serverSend({ type: 'car-status', online: false });
    FakeSocket.last.serverSend({
      type: 'error',
      error: 'Invalid control token',
      errorKey: 'errors.invalidControlToken',
    });
    FakeSocket.last.serverSend({ type: 'what' });
    FakeSocket.last.serverSend('garbage');
    const state = socket.getState();
    expect(state.telemetry).toEqual({ speed: 1.234, battery: 87 });
    expect(state.telemetryAt).toBe(1_000);
    expect(state.carOnline).toBe(false);
    expect(state.error).toEqual({ text: 'Invalid control token', errorKey: 'errors.invalidControlToken' });
    expect(error).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('ControlSocket when the server ends the session', () => {
  beforeEach(() => {
    FakeSocket.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it.each([4000, 4001, 4003, 4004])('does not reconnect after close code %d and says why', (code) => {
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(code, 'kicked');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(socket.getState()).toMatchObject({
      connection: 'disconnected',
      ended: { code, reason: 'kicked' },
    });
  });

  it('stops after incompatible and its 4002 close without ending the driving session, and tells the page', () => {
    const outdated = new OutdatedPage();
    const socket = new ControlSocket({
      carId: 3,
      controlToken: 'ctl/1',
      getAccessToken: () => 'acc-1',
      createSocket: fakeSocketFactory,
      location,
      outdated,
    });
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({
      type: 'incompatible',
      reason: 'client_too_old',
      supported: { min: 2, max: 2 },
    });
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.incompatible, 'client_too_old');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(outdated.getState()).toEqual({ reason: 'client_too_old' });
    // The control token stays: after the reload, the driver is back on the car.
    expect(socket.getState()).toMatchObject({ connection: 'disconnected', ended: null });
  });

  it('counts the attempts refused before opening, and forgets them once connected', () => {
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverClose();
    vi.advanceTimersByTime(100);
    FakeSocket.last.serverClose();
    expect(socket.getState().failedAttempts).toBe(2);
    vi.advanceTimersByTime(200);
    FakeSocket.last.serverOpen();
    expect(socket.getState().failedAttempts).toBe(0);
  });
});

describe('ControlSocket and the access token (the server closes a socket whose token expired)', () => {
  beforeEach(() => {
    FakeSocket.reset();
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T10:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  /** A control socket on the mocked clock, with the auth client's token, its changes and refresh faked. */
  function withAuth(initial: string) {
    let token: string | null = initial;
    const listeners = new Set<(token: string | null) => void>();
    const renewToken = vi.fn<() => Promise<string>>();
    const socket = new ControlSocket({
      carId: 3,
      controlToken: 'ctl',
      getAccessToken: () => token,
      onTokenChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      renewToken,
      createSocket: fakeSocketFactory,
      location,
    });
    const setToken = (next: string | null) => {
      token = next;
      for (const listener of listeners) listener(next);
    };
    return { socket, renewToken, setToken, listeners };
  }
  const auths = (socket: FakeSocket) => socket.messages.filter((m) => m.type === 'auth');

  it('hands a refreshed token to the open socket with auth, without reconnecting', () => {
    const { socket, setToken } = withAuth(tokenFor(7));
    socket.start();
    FakeSocket.last.serverOpen();
    vi.advanceTimersByTime(30_000);
    const fresh = tokenFor(7);
    setToken(fresh);
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: fresh }]);
    expect(FakeSocket.instances).toHaveLength(1);
    FakeSocket.last.serverSend({ type: 'auth_ok', expiresAt: new Date().toISOString() });
    expect(socket.getState().error).toBeNull();
  });

  it('sends a token refreshed while connecting once the socket opens', () => {
    const { socket, setToken } = withAuth(tokenFor(7));
    socket.start();
    vi.advanceTimersByTime(1_000);
    const fresh = tokenFor(7);
    setToken(fresh);
    FakeSocket.last.serverOpen();
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: fresh }]);
  });

  it('asks for a fresh token before its token expires and sends it with auth', async () => {
    const { socket, renewToken, setToken } = withAuth(tokenFor(7, 900));
    socket.start();
    FakeSocket.last.serverOpen();
    const fresh = tokenFor(7, 900, Date.now() + 840_000);
    // The auth client's refresh announces the new token to every listener.
    renewToken.mockImplementation(async () => {
      setToken(fresh);
      return fresh;
    });
    vi.advanceTimersByTime(839_000);
    expect(renewToken).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewToken).toHaveBeenCalledTimes(1);
    expect(auths(FakeSocket.last)).toEqual([{ type: 'auth', token: fresh }]);
  });

  it('after a tokenExpired close, reconnects at once with a fresh token, not as a failed attempt', async () => {
    const { socket, renewToken, setToken } = withAuth(tokenFor(7, 10));
    socket.start();
    FakeSocket.last.serverOpen();
    vi.setSystemTime(Date.now() + 11_000);
    const fresh = tokenFor(7);
    renewToken.mockImplementation(async () => {
      setToken(fresh);
      return fresh;
    });
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired');
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain(`token=${fresh}`);
    expect(socket.getState()).toMatchObject({ connection: 'connecting', failedAttempts: 0, ended: null });
  });

  it('after a lost connection, renews an expired token before reconnecting', async () => {
    const { socket, renewToken, setToken } = withAuth(tokenFor(7, 10));
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(1006);
    vi.setSystemTime(Date.now() + 11_000);
    const fresh = tokenFor(7);
    renewToken.mockImplementation(async () => {
      setToken(fresh);
      return fresh;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(renewToken).toHaveBeenCalledTimes(1);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(FakeSocket.last.url).toContain(`token=${fresh}`);
  });

  it('ends for good after a sessionRevoked close (the user logged out)', () => {
    const { socket, renewToken } = withAuth(tokenFor(7));
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.sessionRevoked, 'session_revoked');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(renewToken).not.toHaveBeenCalled();
    expect(socket.getState().ended).toEqual({
      code: SOCKET_CLOSE_CODES.sessionRevoked,
      reason: 'session_revoked',
    });
  });

  it('comes back after a roleChanged close', () => {
    const { socket } = withAuth(tokenFor(7));
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.roleChanged, 'role changed');
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(socket.getState().ended).toBeNull();
  });

  it('stops following token changes and renewing once stopped', async () => {
    const { socket, renewToken, listeners } = withAuth(tokenFor(7, 900));
    socket.start();
    FakeSocket.last.serverOpen();
    socket.stop();
    expect(listeners.size).toBe(0);
    await vi.advanceTimersByTimeAsync(900_000);
    expect(renewToken).not.toHaveBeenCalled();
  });
});

describe('ControlSocket and the drive channel', () => {
  beforeEach(() => {
    FakeSocket.reset();
    FakePeer.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  const channelDrives = (peer: FakePeer) => peer.channel.messages.filter((m) => m.type === 'drive');

  /** Connected, the channel offered, not answered yet. */
  async function offered() {
    const socket = new ControlSocket({
      carId: 3,
      controlToken: 'ctl',
      getAccessToken: () => 'acc-1',
      createSocket: fakeSocketFactory,
      location,
      whenIdle: () => () => {},
      createPeer: fakePeerFactory,
      iceServers: async () => [],
    });
    socket.start();
    const ws = FakeSocket.last;
    ws.serverOpen();
    await vi.advanceTimersByTimeAsync(0);
    const peer = FakePeer.last;
    expect(ws.messages.filter((m) => m.type === 'rtc_offer')).toEqual([
      { type: 'rtc_offer', sdp: 'v=0 offer 1' },
    ]);
    return { socket, ws, peer };
  }

  /** Connected, the channel offered, answered and open, the page's first (neutral) drive sent. */
  async function driving() {
    const { socket, ws, peer } = await offered();
    ws.serverSend({ type: 'rtc_answer', sdp: 'v=0 answer' });
    await vi.advanceTimersByTimeAsync(0);
    expect(peer.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0 answer' });
    socket.sendDrive(0, 0);
    peer.channel.remoteOpen();
    return { socket, ws, peer };
  }

  /** The server acknowledges every drive the channel carried so far. */
  const ackAll = (peer: FakePeer) => {
    for (const drive of channelDrives(peer)) peer.channel.remoteSend({ type: 'drive-ack', seq: drive.seq });
  };

  it('drives over the channel once the server acknowledges it, the socket carrying none', async () => {
    const { socket, ws, peer } = await driving();
    // Before the channel opened the socket carried the drive; once open, a probe goes on the channel only.
    expect(drives(ws)).toEqual([{ type: 'drive', throttle: 0, steer: 0, seq: 1 }]);
    expect(channelDrives(peer)).toEqual([{ type: 'drive', throttle: 0, steer: 0, seq: 2 }]);
    ackAll(peer);
    socket.sendDrive(1, 0);
    expect(channelDrives(peer).at(-1)).toEqual({ type: 'drive', throttle: 1, steer: 0, seq: 3 });
    // Repeated while nothing newer goes: a lost packet is replaced within repeatMs.
    vi.advanceTimersByTime(DRIVE_CHANNEL.repeatMs - 1);
    expect(channelDrives(peer)).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(channelDrives(peer).at(-1)).toEqual({ type: 'drive', throttle: 1, steer: 0, seq: 4 });
    ackAll(peer);
    vi.advanceTimersByTime(DRIVE_CHANNEL.repeatMs);
    expect(channelDrives(peer)).toHaveLength(4);
    expect(drives(ws)).toHaveLength(1);
  });

  it('drives over the socket at once when the channel closes, and goes back to a new channel later', async () => {
    const { socket, ws, peer } = await driving();
    ackAll(peer);
    socket.sendDrive(1, 0);
    peer.channel.remoteClose();
    expect(drives(ws).at(-1)).toEqual({ type: 'drive', throttle: 1, steer: 0, seq: 4 });
    // The socket delivers reliably: nothing is repeated on it.
    vi.advanceTimersByTime(DRIVE_CHANNEL.retryInitialMs - 1);
    expect(drives(ws)).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(1);
    const next = FakePeer.last;
    expect(next).not.toBe(peer);
    ws.serverSend({ type: 'rtc_answer', sdp: 'v=0 answer 2' });
    next.channel.remoteOpen();
    ackAll(next);
    socket.sendDrive(1, 0.5);
    expect(channelDrives(next).at(-1)).toMatchObject({ throttle: 1, steer: 0.5 });
    expect(drives(ws)).toHaveLength(2);
  });

  it('drives over the socket when acknowledgements stop, within ackTimeoutMs, and back on the channel when they return', async () => {
    const { socket, ws, peer } = await driving();
    ackAll(peer);
    socket.sendDrive(1, 0);
    ackAll(peer);
    const lastAckAt = Date.now();
    // The channel keeps sending, nothing comes back.
    while (drives(ws).length === 1) vi.advanceTimersByTime(1);
    expect(Date.now() - lastAckAt).toBe(DRIVE_CHANNEL.ackTimeoutMs);
    expect(drives(ws).at(-1)).toMatchObject({ throttle: 1, steer: 0 });
    // The socket delivered it: the repeats go on the channel only, as probes.
    const probes = channelDrives(peer).length;
    vi.advanceTimersByTime(DRIVE_CHANNEL.repeatMs);
    expect(drives(ws)).toHaveLength(2);
    expect(channelDrives(peer)).toHaveLength(probes + 1);
    ackAll(peer);
    socket.sendDrive(1, 0.5);
    expect(channelDrives(peer).at(-1)).toMatchObject({ throttle: 1, steer: 0.5 });
    expect(drives(ws)).toHaveLength(2);
  });

  it('sends a drive that stops the car over the socket too, with the same number', async () => {
    const { socket, ws, peer } = await driving();
    ackAll(peer);
    socket.sendDrive(1, 0);
    socket.sendDrive(1, -1);
    expect(drives(ws)).toHaveLength(1);
    socket.sendDrive(0, -1);
    expect(drives(ws).at(-1)).toEqual(channelDrives(peer).at(-1));
    expect(drives(ws).at(-1)).toMatchObject({ throttle: 0, steer: -1 });
    // Steering while stopped is no stop: the channel alone carries it.
    socket.sendDrive(0, 0);
    expect(drives(ws)).toHaveLength(2);
    expect(channelDrives(peer).at(-1)).toMatchObject({ throttle: 0, steer: 0 });
  });

  it('closes the channel with the socket, and offers a new one on the next connection', async () => {
    const { ws, peer } = await driving();
    ackAll(peer);
    ws.serverClose(1006, '');
    expect(peer.closed).toBe(true);
    const sent = peer.channel.sent.length;
    vi.advanceTimersByTime(DRIVE_CHANNEL.repeatMs * 5);
    expect(peer.channel.sent).toHaveLength(sent);
    await vi.advanceTimersByTimeAsync(100);
    FakeSocket.last.serverOpen();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakePeer.instances).toHaveLength(2);
    expect(FakeSocket.last.messages.filter((m) => m.type === 'rtc_offer')).toHaveLength(1);
  });

  it('drives over the socket while the server finds offers too frequent, and offers again after the backoff', async () => {
    const { socket, ws, peer } = await offered();
    ws.serverSend({
      type: 'error',
      error: 'Drive channel offers come too often',
      errorKey: ERROR_KEYS.driveChannelBusy,
    });
    expect(peer.closed).toBe(true);
    // Nothing for the driver to read or do: the socket drives meanwhile.
    expect(socket.getState().error).toBeNull();
    socket.sendDrive(1, 0);
    expect(drives(ws)).toEqual([{ type: 'drive', throttle: 1, steer: 0, seq: 1 }]);
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.retryInitialMs - 1);
    expect(ws.messages.filter((m) => m.type === 'rtc_offer')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ws.messages.filter((m) => m.type === 'rtc_offer')).toHaveLength(2);
  });

  it('drives over the socket alone when the server has no drive channel, and asks again on the next connection', async () => {
    const { socket, ws, peer } = await offered();
    ws.serverSend({
      type: 'error',
      error: 'This server has no drive channel: drive over this socket',
      errorKey: ERROR_KEYS.driveChannelOff,
    });
    expect(peer.closed).toBe(true);
    // Nothing for the driver to read or do.
    expect(socket.getState().error).toBeNull();
    socket.sendDrive(1, 0);
    socket.sendDrive(0.5, 0);
    expect(drives(ws)).toEqual([
      { type: 'drive', throttle: 1, steer: 0, seq: 1 },
      { type: 'drive', throttle: 0.5, steer: 0, seq: 2 },
    ]);
    // No other offer on this connection, and nothing repeated: the socket delivers.
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.openTimeoutMs + DRIVE_CHANNEL.retryMaxMs);
    expect(ws.messages.filter((m) => m.type === 'rtc_offer')).toHaveLength(1);
    expect(FakePeer.instances).toHaveLength(1);
    expect(drives(ws)).toHaveLength(2);

    ws.serverClose(1006, '');
    await vi.advanceTimersByTimeAsync(100);
    FakeSocket.last.serverOpen();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.last.messages.filter((m) => m.type === 'rtc_offer')).toHaveLength(1);
  });
});
