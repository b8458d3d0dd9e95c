// @vitest-environment jsdom
// (jsdom, not the suite's happy-dom: the player sets srcObject to the test's MediaStream double, which happy-dom refuses.)
import { VIDEO_PLAYER } from '@telerace/protocol';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { resetAuthClient, setAccessToken } from '../../lib/auth-client';
import { CONNECT_TIMEOUT_MS, loadJanus } from '../../lib/janus-stream';
import { ANSWER, FakeJanus, OFFER } from '../../test/fake-janus';
import { callsTo, json, stubFetch } from '../profile/testing';
import { useFullScreen } from './use-full-screen';
import { VideoPlayer, type VideoPlayerProps } from './VideoPlayer';

vi.mock('janus-gateway', async () => ({ default: (await import('../../test/fake-janus')).FakeJanus }));
vi.mock('webrtc-adapter', () => ({ default: { browserDetails: { browser: 'chrome', version: 140 } } }));

/** jsdom has no MediaStream: the player only wraps the remote track in one for the <video>. */
class FakeMediaStream {
  constructor(readonly tracks: MediaStreamTrack[]) {}
}

const ICE_SERVERS = [
  { urls: ['stun:turn.telerace.test:3478'] },
  { urls: ['turn:turn.telerace.test:3478'], username: '1700000000:12', credential: 'secret' },
];

let fetchMock: ReturnType<typeof stubFetch>;

/** The control page's use: the player's frame is the stage the page puts in full screen. */
function Stage({ lockLandscape = false }: { lockLandscape?: boolean }) {
  const stageRef = useRef<HTMLDivElement>(null);
  const fullScreen = useFullScreen(stageRef, { lockLandscape });
  return (
    <VideoPlayer
      video={{ available: false, pin: null }}
      streamId={7}
      stageRef={stageRef}
      fullScreen={fullScreen}
    >
      <button type="button">Ready</button>
    </VideoPlayer>
  );
}

function renderPlayer(props: Partial<VideoPlayerProps> = {}) {
  const view = render(<VideoPlayer video={{ available: true, pin: '4321' }} streamId={7} {...props} />);
  const rerender = (next: Partial<VideoPlayerProps>) =>
    view.rerender(<VideoPlayer video={{ available: true, pin: '4321' }} streamId={7} {...props} {...next} />);
  return { ...view, rerender };
}

const video = () => screen.getByTestId('video') as HTMLVideoElement;

async function sessionNumber(count: number) {
  await waitFor(() => expect(FakeJanus.instances).toHaveLength(count));
  return FakeJanus.last;
}

/** Janus accepts the session, the watch is answered with an offer, the track arrives, ICE connects. */
function connect(janus: FakeJanus) {
  act(() => janus.serverReady());
  const handle = janus.handle;
  act(() => {
    handle.serverOffer();
    handle.remoteTrack();
    handle.webrtcState(true);
  });
  return handle;
}

/** Moves the fake clock (and flushes the promises it releases) inside React's act. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

beforeAll(async () => {
  // Loaded once up front, so tests on the fake clock do not wait for the module loader.
  await loadJanus();
});

beforeEach(async () => {
  FakeJanus.reset();
  resetAuthClient();
  setAccessToken('access-token-1');
  vi.stubGlobal('MediaStream', FakeMediaStream);
  fetchMock = stubFetch({ 'GET /api/video/ice-servers': () => json(200, { iceServers: ICE_SERVERS }) });
  await i18n.changeLanguage('en');
});

afterEach(() => {
  vi.useRealTimers();
});

describe('VideoPlayer', () => {
  it('says when the server has no video, and connects nothing', async () => {
    renderPlayer({ video: { available: false, pin: null } });
    expect(screen.getByText('Video is unavailable on this server')).toBeVisible();
    expect(video()).toHaveAttribute('data-state', 'unavailable');
    expect(window.__teleraceVideo).toEqual({
      state: 'unavailable',
      framesDecoded: 0,
      firstFrameMs: null,
      lastError: null,
    });
    await act(async () => {});
    expect(FakeJanus.instances).toHaveLength(0);
    expect(callsTo(fetchMock, 'GET', '/api/video/ice-servers')).toHaveLength(0);
  });

  it('shows connecting while the car status loads', () => {
    renderPlayer({ video: undefined });
    expect(screen.getByText('Connecting to the video…')).toBeVisible();
    expect(video()).toHaveAttribute('data-state', 'connecting');
    expect(FakeJanus.instances).toHaveLength(0);
  });

  it("connects to Janus on the page's host with the access token and the ICE servers, and watches the car's stream with its pin", async () => {
    renderPlayer();
    expect(screen.getByText('Connecting to the video…')).toBeVisible();
    const janus = await sessionNumber(1);
    expect(janus.options.server).toBe('ws://localhost:3000/janus?token=access-token-1');
    act(() => janus.serverReady());
    expect(janus.handles).toHaveLength(1);
    expect(janus.handle.callbacks.plugin).toBe('janus.plugin.streaming');
    expect(janus.handle.sent).toEqual([{ message: { request: 'watch', id: 7, pin: '4321' } }]);
  });

  it('answers the offer receive-only and starts the stream', async () => {
    renderPlayer();
    const janus = await sessionNumber(1);
    act(() => janus.serverReady());
    act(() => janus.handle.serverOffer());
    await waitFor(() => expect(janus.handle.answered).toEqual([{ jsep: OFFER, tracks: [{ type: 'data' }] }]));
    // The peer connection janus.js creates for the answer uses the user's ICE servers.
    expect(janus.options.iceServers).toEqual(ICE_SERVERS);
    expect(janus.handle.sent.slice(1)).toEqual([
      { message: { request: 'start' }, jsep: ANSWER },
      // Frames shown as soon as decoded: no playout delay (the mountpoint's RTP extension).
      { message: { request: 'configure', min_delay: 0, max_delay: 0 } },
    ]);
  });

  it('waits for the camera once connected, then plays when frames are decoded, with no extra buffering', async () => {
    renderPlayer();
    const handle = connect(await sessionNumber(1));
    expect(screen.getByText("Waiting for the car's camera…")).toBeVisible();
    expect(video()).toHaveAttribute('data-state', 'waiting');
    const stream = video().srcObject as unknown as FakeMediaStream;
    expect(stream.tracks.map((track) => track.kind)).toEqual(['video']);
    expect(handle.pc.receiver.jitterBufferTarget).toBe(0);
    expect(handle.pc.receiver.playoutDelayHint).toBe(0);

    handle.pc.framesDecoded = 42;
    await waitFor(() => expect(video()).toHaveAttribute('data-state', 'playing'));
    expect(video()).toHaveAttribute('data-frames-decoded', '42');
    expect(Number(video().getAttribute('data-first-frame-ms'))).toBeGreaterThanOrEqual(0);
    expect(screen.queryByTestId('video-message')).not.toBeInTheDocument();
    expect(window.__teleraceVideo).toMatchObject({ state: 'playing', framesDecoded: 42 });
    expect(window.__teleraceVideo?.firstFrameMs).toEqual(expect.any(Number));
  });

  it("marks the steps of the page's first attempt for the latency bench, and only that attempt's", async () => {
    performance.clearMarks();
    const steps = () =>
      performance
        .getEntriesByType('mark')
        .filter((mark) => mark.name.startsWith('video:'))
        .map((mark) => mark.name);
    renderPlayer();
    const handle = connect(await sessionNumber(1));
    handle.pc.framesDecoded = 5;
    await waitFor(() => expect(video()).toHaveAttribute('data-state', 'playing'));
    // Every step once (the fake connects before the answer, so their order here is the fake's).
    expect(steps().sort()).toEqual(
      [
        'video:start',
        'video:janus-loaded',
        'video:session',
        'video:attached',
        'video:offer',
        'video:answer',
        'video:connected',
        'video:first-frame',
      ].sort(),
    );

    act(() => handle.webrtcState(false));
    fireEvent.click(screen.getByRole('button', { name: 'Retry now' }));
    connect(await sessionNumber(2)).pc.framesDecoded = 5;
    await waitFor(() => expect(video()).toHaveAttribute('data-state', 'playing'));
    expect(steps()).toHaveLength(8);
  });

  it('says the video was lost and watches again after a growing delay, with a fresh token', async () => {
    vi.useFakeTimers();
    renderPlayer();
    await advance(0);
    const first = FakeJanus.last;
    connect(first);

    act(() => first.serverError());
    expect(screen.getByText('Video lost — retrying in 1 s…')).toBeVisible();
    expect(video()).toHaveAttribute('data-state', 'retrying');
    expect(first.handle.detached).toEqual({ noRequest: true });
    expect(first.destroyed).toBe(true);

    setAccessToken('access-token-2');
    await advance(VIDEO_PLAYER.retryInitialMs - 1);
    expect(FakeJanus.instances).toHaveLength(1);
    await advance(1);
    expect(FakeJanus.instances).toHaveLength(2);
    expect(FakeJanus.last.options.server).toBe('ws://localhost:3000/janus?token=access-token-2');
    expect(screen.getByText('Connecting to the video…')).toBeVisible();

    // Refused again: the next wait is twice as long, counted down each second.
    act(() =>
      FakeJanus.last.serverError('Error connecting to the Janus WebSockets server: Is the server down?'),
    );
    expect(screen.getByText('Video lost — retrying in 2 s…')).toBeVisible();
    await advance(1000);
    expect(screen.getByText('Video lost — retrying in 1 s…')).toBeVisible();
    await advance(1000);
    expect(FakeJanus.instances).toHaveLength(3);
    expect(callsTo(fetchMock, 'GET', '/api/video/ice-servers')).toHaveLength(3);
  });

  it('watches again when Janus hangs up, and at once on Retry now', async () => {
    vi.useFakeTimers();
    renderPlayer();
    await advance(0);
    const handle = connect(FakeJanus.last);
    act(() => handle.webrtcState(false));
    expect(screen.getByText('Video lost — retrying in 1 s…')).toBeVisible();
    expect(FakeJanus.last.destroyed).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Retry now' }));
    await advance(0);
    expect(FakeJanus.instances).toHaveLength(2);
    // The countdown of the abandoned wait does not start a third session.
    await advance(VIDEO_PLAYER.retryMaxMs);
    expect(FakeJanus.instances).toHaveLength(2);
  });

  it('watches again when ICE fails', async () => {
    vi.useFakeTimers();
    renderPlayer();
    await advance(0);
    const handle = connect(FakeJanus.last);
    act(() => handle.iceState('failed'));
    expect(video()).toHaveAttribute('data-state', 'retrying');
    await advance(VIDEO_PLAYER.retryInitialMs);
    expect(FakeJanus.instances).toHaveLength(2);
  });

  it('gives up an attempt that never connects', async () => {
    vi.useFakeTimers();
    renderPlayer();
    await advance(0);
    act(() => FakeJanus.last.serverReady());
    await advance(CONNECT_TIMEOUT_MS);
    expect(video()).toHaveAttribute('data-state', 'retrying');
    expect(FakeJanus.last.destroyed).toBe(true);
  });

  it('treats a picture that stops changing while playing as lost', async () => {
    vi.useFakeTimers();
    renderPlayer();
    await advance(0);
    const handle = connect(FakeJanus.last);
    handle.pc.framesDecoded = 10;
    await advance(250);
    expect(video()).toHaveAttribute('data-state', 'playing');
    handle.pc.framesDecoded = 20;
    await advance(VIDEO_PLAYER.stallMs - 250);
    expect(video()).toHaveAttribute('data-state', 'playing');
    expect(video()).toHaveAttribute('data-frames-decoded', '20');
    await advance(500);
    expect(video()).toHaveAttribute('data-state', 'retrying');
    expect(window.__teleraceVideo?.lastError).toBe('no new frame');
  });

  it('re-reads the car status when Janus refuses the pin, and watches with the new one', async () => {
    vi.useFakeTimers();
    const onPinRejected = vi.fn();
    const { rerender } = renderPlayer({ onPinRejected });
    await advance(0);
    act(() => FakeJanus.last.serverReady());
    act(() => FakeJanus.last.handle.serverMessage({ error_code: 457, error: 'Unauthorized (wrong pin)' }));
    expect(onPinRejected).toHaveBeenCalledTimes(1);
    expect(video()).toHaveAttribute('data-state', 'retrying');

    rerender({ onPinRejected, video: { available: true, pin: '9999' } });
    await advance(VIDEO_PLAYER.retryInitialMs);
    act(() => FakeJanus.last.serverReady());
    expect(FakeJanus.last.handle.sent[0]).toEqual({ message: { request: 'watch', id: 7, pin: '9999' } });
  });

  it('hangs up, detaches and destroys the session on unmount, and retries no more', async () => {
    vi.useFakeTimers();
    const view = renderPlayer();
    await advance(0);
    const janus = FakeJanus.last;
    const handle = connect(janus);
    view.unmount();
    expect(handle.hungUp).toBe(true);
    expect(handle.detached).toEqual({ noRequest: false });
    expect(janus.destroyed).toBe(true);
    expect(window.__teleraceVideo).toBeUndefined();
    await advance(VIDEO_PLAYER.retryMaxMs);
    expect(FakeJanus.instances).toHaveLength(1);
  });

  it('says so when the browser cannot play WebRTC, without retrying', async () => {
    vi.useFakeTimers();
    FakeJanus.webrtcSupported = false;
    renderPlayer();
    await advance(0);
    expect(screen.getByText("This browser can't play the live video")).toBeVisible();
    expect(video()).toHaveAttribute('data-state', 'unavailable');
    await advance(VIDEO_PLAYER.retryMaxMs);
    expect(FakeJanus.instances).toHaveLength(0);
  });

  it('starts muted with a 0–1 volume slider in steps of 0.05, and unmutes when it moves', () => {
    renderPlayer({ video: { available: false, pin: null } });
    const slider = screen.getByRole('slider', { name: 'Volume' });
    expect(slider).toHaveAttribute('min', '0');
    expect(slider).toHaveAttribute('max', '1');
    expect(slider).toHaveAttribute('step', '0.05');
    expect(slider).toHaveValue('0');
    expect(slider).toHaveAttribute('aria-valuetext', 'Muted');
    expect(video().muted).toBe(true);

    fireEvent.change(slider, { target: { value: '0.35' } });
    expect(video().muted).toBe(false);
    expect(video().volume).toBeCloseTo(0.35);
    expect(slider).toHaveAttribute('aria-valuetext', '35%');

    fireEvent.change(slider, { target: { value: '0' } });
    expect(video().muted).toBe(true);
  });

  describe('full screen', () => {
    // jsdom has no screen.orientation: each test gives the one it needs.
    let orientation: Record<string, unknown> = {};
    beforeEach(() => {
      orientation = {};
      Object.defineProperty(window.screen, 'orientation', { configurable: true, value: orientation });
    });
    afterEach(() => {
      Reflect.deleteProperty(document, 'fullscreenEnabled');
      Reflect.deleteProperty(document, 'fullscreenElement');
      Reflect.deleteProperty(window.screen, 'orientation');
    });

    it('puts the whole video area (overlays included) in full screen, turns a phone sideways and says when it is', async () => {
      Object.defineProperty(document, 'fullscreenEnabled', { configurable: true, value: true });
      let fullscreenElement: Element | null = null;
      Object.defineProperty(document, 'fullscreenElement', {
        configurable: true,
        get: () => fullscreenElement,
      });
      const lock = vi.fn(async () => {});
      const unlock = vi.fn();
      Object.assign(orientation, { lock, unlock });
      const user = userEvent.setup();
      render(<Stage lockLandscape />);
      const area = screen.getByTestId('video-area');
      expect(area).toContainElement(screen.getByRole('button', { name: 'Ready' }));
      const request = vi.fn(async () => {});
      area.requestFullscreen = request;
      const exit = vi.fn(async () => {});
      document.exitFullscreen = exit;

      const button = screen.getByRole('button', { name: 'Enter full screen' });
      expect(button).toHaveAttribute('aria-pressed', 'false');
      await user.click(button);
      expect(request).toHaveBeenCalledTimes(1);
      expect(lock).toHaveBeenCalledWith('landscape');
      fullscreenElement = area;
      act(() => {
        document.dispatchEvent(new Event('fullscreenchange'));
      });
      expect(button).toHaveAttribute('aria-pressed', 'true');
      expect(button).toHaveAccessibleName('Exit full screen');
      expect(area).toHaveAttribute('data-full-screen', 'element');

      await user.click(button);
      expect(exit).toHaveBeenCalledTimes(1);
      fullscreenElement = null;
      act(() => {
        document.dispatchEvent(new Event('fullscreenchange'));
      });
      expect(button).toHaveAttribute('aria-pressed', 'false');
      expect(button).toHaveAccessibleName('Enter full screen');
      expect(area).not.toHaveAttribute('data-full-screen');
      expect(unlock).toHaveBeenCalled();
    });

    it('does not lock the orientation on a desktop, and a refused full screen changes nothing', async () => {
      Object.defineProperty(document, 'fullscreenEnabled', { configurable: true, value: true });
      const lock = vi.fn(async () => {});
      Object.assign(orientation, { lock });
      const user = userEvent.setup();
      render(<Stage />);
      screen.getByTestId('video-area').requestFullscreen = vi.fn(async () => {
        throw new TypeError('Permissions check failed');
      });
      await user.click(screen.getByRole('button', { name: 'Enter full screen' }));
      expect(lock).not.toHaveBeenCalled();
      expect(screen.getByRole('button', { name: 'Enter full screen' })).toHaveAttribute(
        'aria-pressed',
        'false',
      );
    });

    it('covers the window instead where the browser has no element full screen (iPhone), until Escape', async () => {
      Object.defineProperty(document, 'fullscreenEnabled', { configurable: true, value: false });
      const user = userEvent.setup();
      render(<Stage lockLandscape />);
      const area = screen.getByTestId('video-area');
      await user.click(screen.getByRole('button', { name: 'Enter full screen' }));
      expect(area).toHaveAttribute('data-full-screen', 'viewport');
      expect(area).toHaveClass('fixed', 'inset-0');
      // The page under it does not scroll.
      expect(document.documentElement.style.overflow).toBe('hidden');
      expect(screen.getByRole('button', { name: 'Exit full screen' })).toHaveAttribute(
        'aria-pressed',
        'true',
      );
      await user.keyboard('{Escape}');
      expect(area).not.toHaveAttribute('data-full-screen');
      expect(document.documentElement.style.overflow).toBe('');
      await user.click(screen.getByRole('button', { name: 'Enter full screen' }));
      await user.click(screen.getByRole('button', { name: 'Exit full screen' }));
      expect(area).not.toHaveAttribute('data-full-screen');
    });
  });

  it('speaks French', async () => {
    await i18n.changeLanguage('fr');
    renderPlayer({ video: { available: false, pin: null } });
    expect(screen.getByText("La vidéo n'est pas disponible sur ce serveur")).toBeVisible();
    expect(screen.getByRole('slider', { name: 'Volume' })).toHaveAttribute('aria-valuetext', 'Son coupé');
  });
});
