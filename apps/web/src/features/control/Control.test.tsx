import type { RaceState, User } from '@telerace/protocol';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { resetAuthClient } from '../../lib/auth-client';
import { eventSocket } from '../../lib/event-socket';
import { PHONE_LANDSCAPE, PORTRAIT } from '../../lib/use-media-query';
import Control from '../../routes/Control';
import { buildCar } from '../../test/cars';
import { FakeJanus } from '../../test/fake-janus';
import { FakeSocket } from '../../test/fake-socket';
import { pilot, raceState } from '../../test/races';
import { adminUser, callsTo, json, member, renderSignedIn, stubFetch } from '../profile/testing';
import { raceStore } from '../race/race-store';

vi.mock('janus-gateway', async () => ({ default: (await import('../../test/fake-janus')).FakeJanus }));
vi.mock('webrtc-adapter', () => ({ default: { browserDetails: { browser: 'chrome', version: 140 } } }));

const car = buildCar({
  id: 3,
  name: 'Red Comet',
  current_user_id: member.id,
  username: member.username,
  config_forward_speed: 80,
  config_backward_speed: 40,
  config_steering_trim: -5,
});

function renderControl(user: User = member) {
  return renderSignedIn(<Control />, user, {
    at: '/control/3/7',
    path: '/control/:carId/:streamId',
    routes: [{ path: '/car-selection', element: <p>car selection page</p> }],
  });
}

/** Renders the page and opens its control socket from the server side. */
async function renderConnected(user: User = member) {
  const view = await renderControl(user);
  await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
  act(() => FakeSocket.last.serverOpen());
  await screen.findByText('Connected');
  return view;
}

/** The page's event socket, open, and the race store listening to it; `close` undoes both. */
function openRaceEvents() {
  const detach = raceStore.attach();
  eventSocket.connect('access-token-1');
  const events = FakeSocket.last;
  act(() => events.serverOpen());
  const close = () => {
    eventSocket.disconnect();
    detach();
    raceStore.clear();
  };
  return { events, close };
}

/** The drives sent, without their numbers (lib/control-socket.test.ts checks those). */
const drivesOf = (socket: FakeSocket) =>
  socket.messages.filter((m) => m.type === 'drive').map(({ seq: _seq, ...drive }) => drive);
const drives = () => drivesOf(FakeSocket.last);
const lastDrive = () => drives().at(-1);

beforeEach(async () => {
  FakeSocket.reset();
  FakeJanus.reset();
  resetAuthClient();
  window.sessionStorage.clear();
  window.sessionStorage.setItem('controlToken:3', 'ctl-abc');
  vi.stubGlobal('WebSocket', FakeSocket);
  await i18n.changeLanguage('en');
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Control page', () => {
  it('connects the control socket with the car, control token and access token', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderControl();
    expect(await screen.findByRole('heading', { name: 'Red Comet' })).toBeVisible();
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const url = new URL(FakeSocket.last.url);
    expect(url.pathname).toBe('/rcsocket');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      type: 'controller',
      car: '3',
      control_token: 'ctl-abc',
      token: 'access-token-1',
    });
    expect(screen.getByTestId('connection-state')).toHaveTextContent('Connecting…');
  });

  it("shows the video as connecting while the car's status loads, then watches the car's stream with its pin", async () => {
    let answerStatus: (response: Response) => void = () => {};
    const fetchMock = stubFetch({
      'GET /api/cars/3/status': () => new Promise<Response>((resolve) => (answerStatus = resolve)),
      'GET /api/video/ice-servers': () => json(200, { iceServers: [] }),
    });
    await renderControl();
    expect(screen.getByTestId('video')).toHaveAttribute('data-state', 'connecting');
    expect(screen.getByText('Connecting to the video…')).toBeVisible();
    // Answered once asked: on a loaded run the page's request came after this line, and an answer
    // given before it was lost (the page then waited for a status that never came).
    await waitFor(() => expect(callsTo(fetchMock, 'GET', '/api/cars/3/status')).not.toHaveLength(0));
    answerStatus(json(200, { ...car, stream_id: 9, video: { available: true, pin: '4321' } }));
    await waitFor(() => expect(FakeJanus.instances).toHaveLength(1));
    act(() => FakeJanus.last.serverReady());
    expect(FakeJanus.last.handle.sent).toEqual([{ message: { request: 'watch', id: 9, pin: '4321' } }]);

    // A refused pin (the session ended and the pin rotated…) makes the page re-read the status.
    const statusCalls = () => callsTo(fetchMock, 'GET', '/api/cars/3/status').length;
    const before = statusCalls();
    act(() => FakeJanus.last.handle.serverMessage({ error_code: 457, error: 'Unauthorized (wrong pin)' }));
    await waitFor(() => expect(statusCalls()).toBe(before + 1));
    expect(screen.getByTestId('video')).toHaveAttribute('data-state', 'retrying');
  });

  it('starts the video with the PIN kept at connect time, without waiting for the status', async () => {
    window.sessionStorage.setItem('videoPin:3', 'kept-pin');
    stubFetch({
      'GET /api/cars/3/status': () => new Promise<Response>(() => {}),
      'GET /api/video/ice-servers': () => json(200, { iceServers: [] }),
    });
    await renderControl();
    await waitFor(() => expect(FakeJanus.instances).toHaveLength(1));
    act(() => FakeJanus.last.serverReady());
    expect(FakeJanus.last.handle.sent).toEqual([{ message: { request: 'watch', id: 7, pin: 'kept-pin' } }]);
  });

  it('says when the server has no video to offer', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderControl();
    expect(await screen.findByText('Video is unavailable on this server')).toBeVisible();
    expect(FakeJanus.instances).toHaveLength(0);
  });

  it('drives full throttle while W is held, without scrolling, and stops on release', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    const down = fireEvent.keyDown(document.body, { key: 'w', code: 'KeyW' });
    expect(down).toBe(false);
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: 0 });
    fireEvent.keyDown(document.body, { key: 'ArrowLeft', code: 'ArrowLeft' });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: -1 });
    const count = drives().length;
    fireEvent.keyDown(document.body, { key: 'w', code: 'KeyW', repeat: true });
    expect(drives()).toHaveLength(count);
    fireEvent.keyUp(document.body, { key: 'w', code: 'KeyW' });
    fireEvent.keyUp(document.body, { key: 'ArrowLeft', code: 'ArrowLeft' });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });
  });

  it('sends neutral when the window loses focus and when the tab is hidden', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    fireEvent.keyDown(document.body, { key: 'd', code: 'KeyD' });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 1 });
    act(() => {
      window.dispatchEvent(new Event('blur'));
    });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });

    fireEvent.keyDown(document.body, { key: 's', code: 'KeyS' });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: -1, steer: 0 });
    const visibility = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });
    visibility.mockRestore();
  });

  it('sends neutral and closes the socket when the page goes away', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    const view = await renderConnected();
    fireEvent.keyDown(document.body, { key: 'w', code: 'KeyW' });
    const socket = FakeSocket.last;
    view.unmount();
    expect(drivesOf(socket).at(-1)).toEqual({
      type: 'drive',
      throttle: 0,
      steer: 0,
    });
    expect(socket.closedWith?.code).toBe(1000);
  });

  it('drives with the gamepad and sends neutral when it disconnects', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    const buttons = Array.from({ length: 17 }, () => ({ value: 0, pressed: false }));
    buttons[7] = { value: 1, pressed: true };
    let pads: unknown[] = [{ id: 'Test pad', connected: true, axes: [-1, 0, 0, 0], buttons }];
    Object.defineProperty(navigator, 'getGamepads', { configurable: true, value: () => pads });
    try {
      await renderConnected();
      await waitFor(() => expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: -1 }));
      pads = [];
      act(() => {
        window.dispatchEvent(new Event('gamepaddisconnected'));
      });
      expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });
    } finally {
      Reflect.deleteProperty(navigator, 'getGamepads');
    }
  });

  it('polls no gamepad until one connects, drives with it, and stops polling once it is gone', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    const buttons = Array.from({ length: 17 }, () => ({ value: 0, pressed: false }));
    buttons[7] = { value: 1, pressed: true };
    const pad = { id: 'Late pad', connected: true, axes: [1, 0, 0, 0], buttons };
    let pads: unknown[] = [];
    Object.defineProperty(navigator, 'getGamepads', { configurable: true, value: () => pads });
    // Frames in order: a page that polls every frame has asked for the next one before this test's
    // first frame runs, so two frames passing without a request from it mean it is not polling.
    const nextFrame = window.requestAnimationFrame.bind(window);
    const twoFrames = () => new Promise<void>((resolve) => nextFrame(() => nextFrame(() => resolve())));
    const frames = vi.spyOn(window, 'requestAnimationFrame');
    try {
      await renderConnected();
      // No pad: the page does not wake every frame for one (a phone's battery).
      const framesWithoutPad = frames.mock.calls.length;
      await twoFrames();
      expect(frames.mock.calls.length).toBe(framesWithoutPad);

      pads = [pad];
      act(() => {
        window.dispatchEvent(Object.assign(new Event('gamepadconnected'), { gamepad: pad }));
      });
      await waitFor(() => expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: 1 }));

      pads = [];
      await waitFor(() => expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 }));
      // Gone: the polling stopped with it.
      const framesAfterPad = frames.mock.calls.length;
      await twoFrames();
      expect(frames.mock.calls.length).toBe(framesAfterPad);
    } finally {
      frames.mockRestore();
      Reflect.deleteProperty(navigator, 'getGamepads');
    }
  });

  it('drives with both on-screen joysticks at once (two pointers) and centres each on release', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    const throttle = screen.getByTestId('joystick-throttle');
    const steer = screen.getByTestId('joystick-steer');
    const rect = { left: 0, top: 0, width: 100, height: 100, right: 100, bottom: 100, x: 0, y: 0 };
    for (const pad of [throttle, steer]) {
      pad.getBoundingClientRect = () => ({ ...rect, toJSON: () => rect }) as DOMRect;
    }
    fireEvent.pointerDown(throttle, { pointerId: 1, clientX: 50, clientY: 0 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: 0 });
    fireEvent.pointerDown(steer, { pointerId: 2, clientX: 30, clientY: 50 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: -0.5 });
    fireEvent.pointerMove(throttle, { pointerId: 1, clientX: 50, clientY: 70 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: -0.5, steer: -0.5 });
    // A pointer that did not start on a stick does not move it.
    fireEvent.pointerMove(steer, { pointerId: 1, clientX: 100, clientY: 50 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: -0.5, steer: -0.5 });
    expect(throttle).toHaveAttribute('aria-valuenow', '-50');
    fireEvent.pointerUp(throttle, { pointerId: 1 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: -0.5 });
    fireEvent.pointerCancel(steer, { pointerId: 2 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });
    expect(steer).toHaveAttribute('aria-valuenow', '0');
  });

  it('shows the ping in colour and words, and the telemetry', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    // The first ping goes once the page is idle.
    await waitFor(() =>
      expect(FakeSocket.last.messages.some((m) => m.type === 'controller-ping')).toBe(true),
    );
    // 150 ms ago, read when the page gets it: a loaded run adds up to 100 ms and stays yellow
    // (100–250 ms), where 180 and "1xx ms" had left 20 ms and once failed.
    act(() => FakeSocket.last.serverSend({ type: 'controller-pong', timestamp: Date.now() - 150 }));
    await waitFor(() => expect(screen.getByTestId('ping')).toHaveAttribute('data-tone', 'fair'));
    expect(screen.getByTestId('ping')).toHaveTextContent(/Ping (1[5-9]\d|2[0-4]\d) ms/);
    act(() => FakeSocket.last.serverSend({ type: 'telemetry', telemetry: { speed: 1.234, battery: 76 } }));
    expect(screen.getByTestId('telemetry-speed')).toHaveTextContent('1.23 m/s');
    expect(screen.getByTestId('telemetry-battery')).toHaveTextContent('76%');
    // No camera rate until the car streams; a low one is a warning.
    expect(screen.queryByTestId('telemetry-fps')).not.toBeInTheDocument();
    act(() => FakeSocket.last.serverSend({ type: 'telemetry', telemetry: { speed: 1, fps: 29.8 } }));
    expect(screen.getByTestId('telemetry-fps')).toHaveTextContent('30 fps');
    expect(screen.getByTestId('telemetry-fps')).not.toHaveClass('text-warning');
    act(() => FakeSocket.last.serverSend({ type: 'telemetry', telemetry: { speed: 1, fps: 8 } }));
    expect(screen.getByTestId('telemetry-fps')).toHaveClass('text-warning');
    // The picture the car sends, and the bitrate it lowered for a narrow uplink (issue 43).
    const video = { width: 480, height: 360, framerate: 30, maxBitrate: 600 };
    act(() =>
      FakeSocket.last.serverSend({
        type: 'telemetry',
        telemetry: { fps: 30, video: { ...video, bitrate: 600 } },
      }),
    );
    expect(screen.getByTestId('telemetry-fps')).toHaveTextContent(/^30 fps · 360p$/);
    expect(screen.queryByTestId('telemetry-video-lowered')).not.toBeInTheDocument();
    act(() =>
      FakeSocket.last.serverSend({
        type: 'telemetry',
        telemetry: { fps: 30, video: { ...video, bitrate: 290 } },
      }),
    );
    expect(screen.getByTestId('telemetry-video-lowered')).toHaveTextContent('290 kbit/s, narrow uplink');
  });

  it('says Reconnecting… after losing a connection', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    act(() => FakeSocket.last.serverClose());
    expect(screen.getByTestId('connection-state')).toHaveTextContent('Reconnecting…');
  });

  it('shows the session end when the server ends it, and forgets the control token', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    act(() => FakeSocket.last.serverClose(4001, 'kicked'));
    expect(await screen.findByText('An admin ended your driving session.')).toBeVisible();
    expect(window.sessionStorage.getItem('controlToken:3')).toBeNull();
  });

  it('shows the time left in the driving session', async () => {
    const endsAt = new Date(Date.now() + 7 * 60_000 + 30_000).toISOString();
    stubFetch({ 'GET /api/cars/3/status': () => json(200, { ...car, session_ends_at: endsAt }) });
    await renderConnected();
    expect(await screen.findByTestId('session-timer')).toHaveTextContent(/^Your turn ends in 7:(29|30)$/);
  });

  it("says how long the lobby keeps a racer's car, then that it is theirs until the race ends", async () => {
    const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    stubFetch({ 'GET /api/cars/3/status': () => json(200, { ...car, session_ends_at: inMinutes(2) }) });
    await renderConnected();
    expect(await screen.findByTestId('session-timer')).toHaveTextContent(/^Your turn ends in (1:59|2:00)$/);
    const { events, close } = openRaceEvents();
    const tell = (state: RaceState) =>
      act(() => events.serverSend({ type: 'race_state_update', payload: state }));
    try {
      // In the lobby: the end the race state gives (the lobby keeps the car longer), and why.
      tell(raceState({ participants: [pilot(member.id, { carId: 3, sessionEndsAt: inMinutes(12) })] }));
      expect(screen.getByTestId('session-timer')).toHaveTextContent(/^Your turn ends in 1[12]:\d\d$/);
      expect(
        screen.getByText('If the race starts before then, your car stays yours until it ends.'),
      ).toBeVisible();
      // From the start on: until the race ends.
      tell(
        raceState({
          race_status: 'active',
          race_expires_at: inMinutes(3),
          participants: [pilot(member.id, { carId: 3, sessionEndsAt: null })],
        }),
      );
      expect(screen.getByTestId('session-timer')).toHaveTextContent('Your car is yours until the race ends');
      await act(() => i18n.changeLanguage('fr'));
      expect(screen.getByTestId('session-timer')).toHaveTextContent(
        "La voiture est à vous jusqu'à la fin de la course",
      );
    } finally {
      close();
    }
  });

  it('joins the race lobby by itself when it opens with no race running, shown over the video', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    const { events, close } = openRaceEvents();
    try {
      act(() =>
        events.serverSend({
          type: 'race_state_update',
          payload: raceState({ race_status: 'idle', race_id: null }),
        }),
      );
      expect(events.messages.filter((m) => m.type === 'join_lobby')).toEqual([
        { type: 'join_lobby', carId: 3 },
      ]);
      const video = within(screen.getByTestId('video-area'));
      expect(video.getByTestId('race-joining')).toHaveTextContent('Joining the race…');
      act(() =>
        events.serverSend({
          type: 'race_state_update',
          payload: raceState({ participants: [pilot(member.id, { carId: 3 })] }),
        }),
      );
      expect(video.getByTestId('race-lobby-count')).toHaveTextContent('0/1 pilots ready');
      expect(video.getByRole('button', { name: "I'm ready" })).toBeVisible();
    } finally {
      close();
    }
  });

  it('on a screen held upright, puts the race card under the video, and back over it in full screen', async () => {
    vi.stubGlobal(
      'matchMedia',
      vi.fn((query: string) => ({
        matches: query === PORTRAIT,
        addEventListener: () => {},
        removeEventListener: () => {},
      })),
    );
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    const { events, close } = openRaceEvents();
    try {
      act(() =>
        events.serverSend({
          type: 'race_state_update',
          payload: raceState({ participants: [pilot(member.id, { carId: 3 })] }),
        }),
      );
      const stage = screen.getByTestId('video-area');
      const card = screen.getByTestId('race-overlay');
      expect(card).toHaveTextContent('0/1 pilots ready');
      expect(stage).not.toContainElement(card);
      // Right under the video, before the sticks.
      expect(stage.nextElementSibling).toBe(card);
      await userEvent.click(screen.getByRole('button', { name: 'Enter full screen' }));
      expect(within(stage).getByTestId('race-overlay')).toHaveAttribute('data-placement', 'over');
    } finally {
      close();
    }
  });

  it('keeps the turn, the connection and the one ping on the video in full screen', async () => {
    const endsAt = new Date(Date.now() + 7 * 60_000 + 30_000).toISOString();
    stubFetch({ 'GET /api/cars/3/status': () => json(200, { ...car, session_ends_at: endsAt }) });
    await renderConnected();
    await screen.findByTestId('session-timer');
    const stage = screen.getByTestId('video-area');
    expect(stage).not.toContainElement(screen.getByTestId('ping'));
    await userEvent.click(screen.getByRole('button', { name: 'Enter full screen' }));
    const hud = within(stage).getByTestId('full-screen-hud');
    // In a few words on the video; in full to a screen reader.
    const turn = within(hud).getByTestId('session-timer');
    expect(within(turn).getByText(/^Turn 7:(29|30)$/)).toBeVisible();
    expect(within(turn).getByText(/^Your turn ends in 7:(29|30)$/)).toHaveClass('sr-only');
    expect(within(hud).getByTestId('connection-state')).toHaveTextContent('Connected');
    expect(within(hud).getByTestId('ping')).toBeVisible();
    // Moved, not copied: one of each on the page.
    for (const id of ['ping', 'connection-state', 'session-timer'])
      expect(screen.getAllByTestId(id)).toHaveLength(1);
    await userEvent.click(screen.getByRole('button', { name: 'Exit full screen' }));
    expect(screen.queryByTestId('full-screen-hud')).not.toBeInTheDocument();
    expect(stage).not.toContainElement(screen.getByTestId('ping'));
  });

  it('on a phone held sideways, puts both sticks over the video and drives with them', async () => {
    const matchMedia = vi.fn((query: string) => ({
      matches: query === PHONE_LANDSCAPE,
      addEventListener: () => {},
      removeEventListener: () => {},
    }));
    vi.stubGlobal('matchMedia', matchMedia);
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected();
    const video = within(screen.getByTestId('video-area'));
    const throttle = video.getByTestId('joystick-throttle');
    expect(video.getByTestId('joystick-steer')).toBeVisible();
    // The pointer-driven meter gives way to the sticks, which show the input themselves.
    expect(screen.queryByTestId('drive-meter')).not.toBeInTheDocument();
    throttle.getBoundingClientRect = () => ({ left: 0, top: 0, width: 100, height: 100 }) as DOMRect;
    fireEvent.pointerDown(throttle, { pointerId: 1, clientX: 50, clientY: 0 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 1, steer: 0 });
    fireEvent.pointerUp(throttle, { pointerId: 1 });
    expect(lastDrive()).toEqual({ type: 'drive', throttle: 0, steer: 0 });
  });

  it('says the code may have expired when the connection keeps being refused', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
      await renderControl();
      await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
      for (const delay of [100, 200, 400]) {
        act(() => FakeSocket.last.serverClose());
        await act(async () => {
          await vi.advanceTimersByTimeAsync(delay);
        });
      }
      expect(screen.getByText("Can't reach the car")).toBeVisible();
      expect(screen.getByTestId('connection-state')).toHaveTextContent('Connecting…');
      act(() => FakeSocket.last.serverOpen());
      expect(screen.queryByText("Can't reach the car")).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks for the code again when this tab has no control token', async () => {
    window.sessionStorage.clear();
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    const user = userEvent.setup();
    await renderControl();
    expect(screen.getByRole('heading', { name: 'Control code needed' })).toBeVisible();
    expect(FakeSocket.instances).toHaveLength(0);
    await user.click(screen.getByRole('link', { name: 'Back to car selection' }));
    expect(screen.getByText('car selection page')).toBeVisible();
  });

  it('has a back button to car selection', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    const user = userEvent.setup();
    await renderConnected();
    await user.click(screen.getByRole('link', { name: /Cars/ }));
    expect(screen.getByText('car selection page')).toBeVisible();
  });

  it('does not show the car settings to a member', async () => {
    stubFetch({ 'GET /api/cars/3/status': () => json(200, car) });
    await renderConnected(member);
    expect(screen.queryByRole('button', { name: /Car settings/ })).not.toBeInTheDocument();
  });

  it("lets an admin change the car's settings, starting from the saved ones", async () => {
    let answer = json(200, { car: { ...car, control_code: null, last_telemetry: null } });
    const fetchMock = stubFetch({
      'GET /api/cars/3/status': () => json(200, car),
      'POST /api/admin/cars/3/config': () => answer,
    });
    const user = userEvent.setup();
    await renderConnected(adminUser);
    const toggle = screen.getByRole('button', { name: /Car settings/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    const forward = screen.getByRole('slider', { name: 'Forward speed' });
    const backward = screen.getByRole('slider', { name: 'Backward speed' });
    const trim = screen.getByRole('slider', { name: 'Steering trim' });
    await waitFor(() => expect(forward).toHaveValue('80'));
    expect(backward).toHaveValue('40');
    expect(trim).toHaveValue('-5');
    expect(forward).toHaveAttribute('min', '20');
    expect(forward).toHaveAttribute('max', '100');
    expect(trim).toHaveAttribute('min', '-50');
    expect(trim).toHaveAttribute('max', '50');

    // Arrow keys on a slider adjust it and do not drive the car.
    const before = drives().length;
    fireEvent.keyDown(trim, { key: 'ArrowRight', code: 'ArrowRight' });
    expect(drives()).toHaveLength(before);
    fireEvent.change(forward, { target: { value: '65' } });
    fireEvent.change(trim, { target: { value: '12' } });
    const panel = forward.closest('section') as HTMLElement;
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Car settings saved')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/3/config')).toEqual([
      { forwardSpeedPercent: 65, backwardSpeedPercent: 40, trimValue: 12 },
    ]);

    answer = json(500, { error: 'Internal' });
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Error saving settings')).toBeVisible();
  });
});
