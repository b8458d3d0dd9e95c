import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket, fakeSocketFactory } from '../test/fake-socket';
import { ControlSocket, type ControlState } from './control-socket';

const location = { protocol: 'https:', host: 'race.test' };
let clock = 0;

function control(accessToken = 'acc-1') {
  let token = accessToken;
  const socket = new ControlSocket({
    carId: 3,
    controlToken: 'ctl/1',
    getAccessToken: () => token,
    createSocket: fakeSocketFactory,
    location,
    now: () => clock,
  });
  return { socket, setToken: (next: string) => (token = next) };
}

const drives = (socket: FakeSocket) => socket.messages.filter((m) => m.type === 'drive');

beforeEach(() => {
  FakeSocket.reset();
  clock = 1_000;
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
    expect(drives(FakeSocket.last)).toEqual([
      { type: 'drive', throttle: 1, steer: 0 },
      { type: 'drive', throttle: 1, steer: 0.5 },
      { type: 'drive', throttle: 0, steer: 0 },
      { type: 'drive', throttle: 1, steer: -1 },
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
    expect(drives(FakeSocket.last)).toEqual([{ type: 'drive', throttle: 1, steer: 0 }]);
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

  it('sends controller-ping on open and every 15 s, and measures the round trip', () => {
    const { socket } = control();
    socket.start();
    const ws = FakeSocket.last;
    ws.serverOpen();
    expect(ws.messages).toEqual([{ type: 'controller-ping', timestamp: 1_000 }]);
    clock = 1_037;
    ws.serverSend({ type: 'controller-pong', timestamp: 1_000 });
    expect(socket.getState().pingMs).toBe(37);
    clock = 16_000;
    vi.advanceTimersByTime(14_999);
    expect(ws.messages.filter((m) => m.type === 'controller-ping')).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(ws.messages.filter((m) => m.type === 'controller-ping')).toHaveLength(2);
  });

  it('keeps telemetry, the car status and errors, and ignores unknown messages', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'telemetry', telemetry: { speed: 1.234, battery: 87 } });
    FakeSocket.last.serverSend({ type: 'car-status', online: false });
    FakeSocket.last.serverSend({ type: 'error', error: 'Invalid control token' });
    FakeSocket.last.serverSend({ type: 'what' });
    FakeSocket.last.serverSend('garbage');
    const state = socket.getState();
    expect(state.telemetry).toEqual({ speed: 1.234, battery: 87 });
    expect(state.telemetryAt).toBe(1_000);
    expect(state.carOnline).toBe(false);
    expect(state.error).toBe('Invalid control token');
    expect(error).toHaveBeenCalledTimes(1);
  });

  it('sends config', () => {
    const { socket } = control();
    socket.start();
    FakeSocket.last.serverOpen();
    socket.sendConfig({ forwardSpeedPercent: 80, backwardSpeedPercent: 50, trimValue: -3 });
    expect(FakeSocket.last.messages.at(-1)).toEqual({
      type: 'config',
      settings: { forwardSpeedPercent: 80, backwardSpeedPercent: 50, trimValue: -3 },
    });
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
