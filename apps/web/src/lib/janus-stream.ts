/**
 * Watching one car's camera through Janus (docs/video.md "The player (control page)"; spec §2 "Control page", §7
 * "Video"). It loads janus.js on first use, opens a Janus session over the same-origin `/janus`
 * WebSocket with the current access token, watches the car's streaming mountpoint receive-only
 * (video only: an audio track would delay the picture for lip-sync), shows the remote track on the
 * page's <video> with no extra buffering, and counts decoded frames. When the video drops (Janus
 * error, hangup, closed socket, failed ICE, no new frame for `stallMs` while playing) it throws the
 * whole session away and watches again after a backoff, with a fresh token and the latest pin.
 * janus.js opens and owns its signalling WebSocket (the Janus session lives and dies with it), so
 * what is retried here is the whole attempt, not the socket; the retry waits on the same
 * `RetryTimer` as ReconnectingSocket, without jitter (one viewer's stream dropped, not a crowd's).
 * Framework-free: the VideoPlayer component renders its state.
 *
 * Over 400 lines on purpose: one watching attempt's life (janus.js session, handle, ICE, stall
 * watch, retry) shares its state; split, the parts would hand that state to each other.
 */
import { Backoff, IceServersResponse, JANUS_PATH, VIDEO_PLAYER } from '@telerace/protocol';
import { authFetch } from './auth-client';
import { RetryTimer } from './retry-timer';
import { socketUrl } from './socket-url';
import { StateStore } from './state-store';

/**
 * `connecting` until the peer connection is up, `waiting` while it is up without a frame (the
 * car's camera is not sending), `playing` once frames are decoded, `retrying` after a drop,
 * `unsupported` when the browser has no WebRTC (nothing to retry).
 */
export type VideoStatus = 'connecting' | 'waiting' | 'playing' | 'retrying' | 'unsupported';

export interface VideoStreamState {
  status: VideoStatus;
  /** Frames decoded on the current connection (0 again on each new attempt). */
  framesDecoded: number;
  /** Ms from `startedAt` to the first decoded frame, null before it. */
  firstFrameMs: number | null;
  /** While retrying: whole seconds before the next attempt. */
  retryInSeconds: number | null;
  /** Why the last attempt was given up. */
  lastError: string | null;
}

/** The streaming plugin's error when the pin is missing or wrong (JANUS_STREAMING_ERROR_UNAUTHORIZED). */
export const PIN_REFUSED_ERROR = 457;
export const STREAMING_PLUGIN = 'janus.plugin.streaming';
/** How often decoded frames are counted (e2e tests and the stall detection read this count). */
export const FRAME_POLL_MS = 250;
/**
 * An attempt still not connected after this long is given up: a socket that never opens or a
 * Janus that never answers would otherwise leave the spinner forever.
 */
export const CONNECT_TIMEOUT_MS = 15_000;

// The part of janus.js this module uses. Its own typings want `capture` on every track, which a
// receive-only answer (`tracks: [{ type: 'data' }]`) has no use for.

/** An SDP offer or answer. */
export interface Jsep {
  type?: string;
  sdp?: string;
}

/** A streaming plugin event: a result, or an error with its code. */
export interface StreamingMessage {
  result?: { status?: string };
  error_code?: number;
  error?: string;
}

export interface JanusHandle {
  webrtcStuff?: { pc?: RTCPeerConnection | null };
  send(params: { message: Record<string, unknown>; jsep?: Jsep }): void;
  createAnswer(params: {
    jsep: Jsep;
    tracks: Array<{ type: 'data' }>;
    success: (jsep: Jsep) => void;
    error: (error: unknown) => void;
  }): void;
  hangup(sendRequest?: boolean): void;
  detach(params?: { noRequest?: boolean }): void;
}

export interface JanusAttachOptions {
  plugin: string;
  success: (handle: JanusHandle) => void;
  error: (error: unknown) => void;
  onmessage: (message: StreamingMessage, jsep?: Jsep) => void;
  onremotetrack: (track: MediaStreamTrack, mid: string, on: boolean) => void;
  webrtcState: (up: boolean) => void;
  iceState: (state: string) => void;
  oncleanup: () => void;
}

export interface JanusSession {
  attach(options: JanusAttachOptions): void;
  isConnected(): boolean;
  destroy(options: { notifyDestroyed?: boolean }): void;
}

export interface JanusSessionOptions {
  server: string;
  iceServers: RTCIceServer[];
  success: () => void;
  error: (error: unknown) => void;
}

export interface JanusLibrary {
  isWebrtcSupported(): boolean;
  new (options: JanusSessionOptions): JanusSession;
}

/**
 * janus.js ignores its socket closing before the session exists, which is what a proxy that
 * admits the socket and then finds Janus down does: the attempt would wait for the connect
 * timeout. Such a close is reported to it as the connection error it is.
 */
export function reportingEarlyClose(Base: typeof WebSocket): typeof WebSocket {
  return class JanusSocket extends Base {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      let answered = false;
      let failed = false;
      this.addEventListener('message', () => {
        answered = true;
      });
      this.addEventListener('error', () => {
        failed = true;
      });
      this.addEventListener('close', () => {
        if (!answered && !failed) this.dispatchEvent(new Event('error'));
      });
    }
  };
}

let janusLoading: Promise<JanusLibrary> | null = null;

/** janus.js and its WebRTC adapter: their own chunk, fetched on first use and initialised once. */
export function loadJanus(): Promise<JanusLibrary> {
  if (!janusLoading) {
    const loading = Promise.all([import('janus-gateway'), import('webrtc-adapter')]).then(
      ([{ default: Janus }, { default: adapter }]) =>
        new Promise<JanusLibrary>((resolve) => {
          // janus.js does `new deps.WebSocket(server, protocol)`; its typings call it a plain function.
          const deps = { adapter, WebSocket: reportingEarlyClose(WebSocket) } as unknown as Parameters<
            typeof Janus.useDefaultDependencies
          >[0];
          Janus.init({
            dependencies: Janus.useDefaultDependencies(deps),
            callback: () => resolve(Janus as unknown as JanusLibrary),
          });
        }),
    );
    // A chunk that failed to load (network, new release) is fetched again by the next attempt.
    loading.catch(() => {
      if (janusLoading === loading) janusLoading = null;
    });
    janusLoading = loading;
  }
  return janusLoading;
}

/** The STUN/TURN servers for this user (TURN credentials are short-lived: fetched per attempt). */
export async function fetchIceServers(): Promise<RTCIceServer[]> {
  const prefetched = prefetchedIceServers;
  prefetchedIceServers = null;
  if (prefetched && performance.now() - prefetched.at < PREFETCH_FRESH_MS) {
    const servers = await prefetched.servers.catch(() => null);
    if (servers) return servers;
  }
  const { iceServers } = await authFetch('/video/ice-servers', {}, IceServersResponse);
  return iceServers;
}

/** A prefetched answer is used by the next attempt only if this recent (credentials last an hour). */
const PREFETCH_FRESH_MS = 60_000;
let prefetchedIceServers: { at: number; servers: Promise<RTCIceServer[]> } | null = null;

/**
 * Starts what the first attempt needs — janus.js and the ICE servers — while the car's status
 * (with the pin) is still loading, so the picture comes up sooner.
 */
export function prefetchVideo(): void {
  loadJanus().catch(() => undefined);
  if (prefetchedIceServers) return;
  const servers = authFetch('/video/ice-servers', {}, IceServersResponse).then((body) => body.iceServers);
  servers.catch(() => undefined);
  prefetchedIceServers = { at: performance.now(), servers };
}

/** Frames decoded so far: the inbound video stat (it keeps counting in a hidden tab), else the element's. */
export async function readFramesDecoded(
  pc: RTCPeerConnection | null | undefined,
  video: HTMLVideoElement,
): Promise<number | null> {
  if (pc && typeof pc.getStats === 'function') {
    try {
      let frames: number | null = null;
      (await pc.getStats()).forEach((stat: { type?: string; kind?: string; framesDecoded?: unknown }) => {
        if (stat.type === 'inbound-rtp' && stat.kind === 'video' && typeof stat.framesDecoded === 'number') {
          frames = (frames ?? 0) + stat.framesDecoded;
        }
      });
      if (frames !== null) return frames;
    } catch {
      // A connection closing under us: the element may still answer.
    }
  }
  if (typeof video.getVideoPlaybackQuality !== 'function') return null;
  return video.getVideoPlaybackQuality().totalVideoFrames;
}

/** Asks the browser to play out video as soon as it is decoded (no jitter-buffer padding). */
function playOutAtOnce(pc: RTCPeerConnection | null | undefined): void {
  if (!pc || typeof pc.getReceivers !== 'function') return;
  for (const receiver of pc.getReceivers()) {
    if (receiver.track?.kind !== 'video') continue;
    const tunable = receiver as RTCRtpReceiver & { playoutDelayHint?: number | null };
    if ('jitterBufferTarget' in tunable) tunable.jitterBufferTarget = 0;
    if ('playoutDelayHint' in tunable) tunable.playoutDelayHint = 0;
  }
}

/**
 * The steps from the player's mount to the first frame, as `video:<step>` performance marks (the
 * video bench prints where the time goes). Only the page's first attempt is marked.
 */
export type VideoStep =
  | 'start'
  | 'janus-loaded'
  | 'session'
  | 'attached'
  | 'offer'
  | 'answer'
  | 'connected'
  | 'first-frame';

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export interface JanusStreamOptions {
  /** The car's Janus mountpoint id (its `stream_id`). */
  streamId: number;
  /** Read at each attempt: a refreshed car status may carry a new pin. */
  getPin: () => string | null;
  /** Read at each attempt, so a renewed token is used. */
  getAccessToken: () => string | null;
  /** Called when Janus refuses the pin; the next attempt waits for what it returns to settle. */
  onPinRejected?: () => unknown;
  video: HTMLVideoElement;
  /** Origin of `firstFrameMs` on the `now` clock (the player's mount). */
  startedAt: number;
  fetchIceServers?: () => Promise<RTCIceServer[]>;
  location?: Pick<Location, 'protocol' | 'host'>;
  now?: () => number;
  backoff?: Backoff;
}

/** One Janus session and its streaming handle; dropped whole when the video drops. */
interface Attempt {
  live: boolean;
  /** The page's first attempt: the one whose steps are marked. */
  first: boolean;
  session: JanusSession | null;
  handle: JanusHandle | null;
  /** Settles once the ICE servers are in the array the session was given. */
  iceArrived?: Promise<void>;
}

const INITIAL_STATE: VideoStreamState = {
  status: 'connecting',
  framesDecoded: 0,
  firstFrameMs: null,
  retryInSeconds: null,
  lastError: null,
};

export class JanusStream extends StateStore<VideoStreamState> {
  private stopped = true;
  private attempts = 0;
  private current: Attempt | null = null;
  private pinRefresh: Promise<unknown> | null = null;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private sampleTimer: ReturnType<typeof setInterval> | undefined;
  private sampling = false;
  private lastFrameAt = 0;
  private countdownTimer: ReturnType<typeof setInterval> | undefined;
  private retryAt = 0;
  private readonly now: () => number;
  private readonly retry: RetryTimer;

  constructor(private readonly options: JanusStreamOptions) {
    super(INITIAL_STATE);
    this.now = options.now ?? (() => performance.now());
    this.retry = new RetryTimer(
      options.backoff ??
        new Backoff({ initialMs: VIDEO_PLAYER.retryInitialMs, maxMs: VIDEO_PLAYER.retryMaxMs }),
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.attempt();
  }

  /** Hangs up, detaches, destroys the Janus session and clears every timer; no retry follows. */
  stop(): void {
    this.stopped = true;
    this.clearRetry();
    this.endAttempt();
  }

  /** While retrying: watch again now instead of at the end of the countdown. */
  retryNow(): void {
    if (this.stopped || this.state.status !== 'retrying') return;
    this.clearRetry();
    void this.attempt();
  }

  private async attempt(): Promise<void> {
    const first = this.attempts === 0;
    this.attempts += 1;
    const attempt: Attempt = { live: true, first, session: null, handle: null };
    this.current = attempt;
    this.mark(attempt, 'start');
    this.update({ status: 'connecting', framesDecoded: 0, retryInSeconds: null });
    this.connectTimer = setTimeout(() => this.fail(attempt, 'connection timed out'), CONNECT_TIMEOUT_MS);
    // janus.js reads this very array when it creates the peer connection (at the answer), so the
    // first attempt opens its session while the ICE servers are still on their way.
    const iceServers: RTCIceServer[] = [];
    const iceArrived = (this.options.fetchIceServers ?? fetchIceServers)().then((servers) => {
      iceServers.push(...servers);
    });
    iceArrived.catch(() => undefined);
    attempt.iceArrived = iceArrived;
    let Janus: JanusLibrary;
    try {
      await this.pinRefresh;
      this.pinRefresh = null;
      // Later attempts wait for the ICE-servers call: it renews an expired access token, which the
      // socket below needs (the page's first attempt has a fresh one).
      [Janus] = await Promise.all([loadJanus(), first ? undefined : iceArrived]);
    } catch (error) {
      this.fail(attempt, describe(error));
      return;
    }
    if (!attempt.live) return;
    this.mark(attempt, 'janus-loaded');
    if (!Janus.isWebrtcSupported()) {
      this.endAttempt();
      this.stopped = true;
      this.update({ status: 'unsupported', lastError: 'WebRTC is not supported' });
      return;
    }
    const server = socketUrl(
      JANUS_PATH,
      { token: this.options.getAccessToken() ?? '' },
      this.options.location ?? window.location,
    );
    const session = new Janus({
      server,
      iceServers,
      success: () => {
        this.mark(attempt, 'session');
        if (attempt.live) this.attach(attempt, session);
        // Stopped while the socket was opening: the session exists only now, end it too.
        else session.destroy({ notifyDestroyed: false });
      },
      error: (error) => this.fail(attempt, `Janus: ${describe(error)}`),
    });
    attempt.session = session;
  }

  private attach(attempt: Attempt, session: JanusSession): void {
    session.attach({
      plugin: STREAMING_PLUGIN,
      success: (handle) => {
        if (!attempt.live) return;
        this.mark(attempt, 'attached');
        attempt.handle = handle;
        const pin = this.options.getPin();
        handle.send({
          message: { request: 'watch', id: this.options.streamId, ...(pin === null ? {} : { pin }) },
        });
      },
      error: (error) => this.fail(attempt, `attach: ${describe(error)}`),
      onmessage: (message, jsep) => this.receive(attempt, message, jsep),
      onremotetrack: (track, _mid, on) => {
        if (attempt.live && on && track.kind === 'video') this.show(attempt, track);
      },
      webrtcState: (up) => {
        if (!attempt.live) return;
        if (!up) {
          this.fail(attempt, 'hung up');
          return;
        }
        this.mark(attempt, 'connected');
        clearTimeout(this.connectTimer);
        if (this.state.status === 'connecting') this.update({ status: 'waiting' });
      },
      iceState: (state) => {
        // `disconnected` often recovers by itself; a picture that does not is caught as a stall.
        if (state === 'failed') this.fail(attempt, 'ICE failed');
      },
      oncleanup: () => this.fail(attempt, 'peer connection closed'),
    });
  }

  private receive(attempt: Attempt, message: StreamingMessage, jsep: Jsep | undefined): void {
    if (!attempt.live) return;
    if (message.error_code !== undefined || message.error !== undefined) {
      if (message.error_code === PIN_REFUSED_ERROR && this.options.onPinRejected) {
        this.pinRefresh = Promise.resolve(this.options.onPinRejected()).catch(() => undefined);
      }
      this.fail(attempt, `streaming error ${message.error_code ?? ''}: ${message.error ?? ''}`.trim());
      return;
    }
    if (message.result?.status === 'stopped') {
      this.fail(attempt, 'stream stopped');
      return;
    }
    const handle = attempt.handle;
    if (!jsep || !handle) return;
    this.mark(attempt, 'offer');
    (attempt.iceArrived ?? Promise.resolve()).then(
      () => {
        if (attempt.live) this.answer(attempt, handle, jsep);
      },
      (error: unknown) => this.fail(attempt, `ICE servers: ${describe(error)}`),
    );
  }

  private answer(attempt: Attempt, handle: JanusHandle, jsep: Jsep): void {
    handle.createAnswer({
      jsep,
      // Receive-only: a data entry instead of nothing, or janus.js would capture camera and mic.
      tracks: [{ type: 'data' }],
      success: (answer) => {
        if (!attempt.live) return;
        this.mark(attempt, 'answer');
        handle.send({ message: { request: 'start' }, jsep: answer });
        // No playout delay, carried in every packet (the RTP extension the mountpoint offers):
        // Chromium then shows each frame as soon as it is decoded, about 20 ms sooner than through
        // its jitter buffer (docs/video.md "Latency").
        handle.send({ message: { request: 'configure', min_delay: 0, max_delay: 0 } });
      },
      error: (error) => this.fail(attempt, `answer: ${describe(error)}`),
    });
  }

  private show(attempt: Attempt, track: MediaStreamTrack): void {
    const { video } = this.options;
    video.srcObject = new MediaStream([track]);
    playOutAtOnce(attempt.handle?.webrtcStuff?.pc);
    if (this.state.firstFrameMs === null && typeof video.requestVideoFrameCallback === 'function') {
      // Marks the first frame to the millisecond (the poll alone is up to FRAME_POLL_MS late).
      video.requestVideoFrameCallback(() => {
        if (!attempt.live) return;
        this.markFirstFrame(attempt);
        void this.sample(attempt);
      });
    }
    if (this.sampleTimer === undefined) {
      this.sampleTimer = setInterval(() => void this.sample(attempt), FRAME_POLL_MS);
    }
  }

  private markFirstFrame(attempt: Attempt): void {
    if (this.state.firstFrameMs !== null) return;
    this.mark(attempt, 'first-frame');
    this.update({ firstFrameMs: Math.max(0, Math.round(this.now() - this.options.startedAt)) });
  }

  private async sample(attempt: Attempt): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    let frames: number | null;
    try {
      frames = await readFramesDecoded(attempt.handle?.webrtcStuff?.pc, this.options.video);
    } finally {
      this.sampling = false;
    }
    if (!attempt.live || frames === null) return;
    const now = this.now();
    if (frames > this.state.framesDecoded) {
      this.lastFrameAt = now;
      this.markFirstFrame(attempt);
      if (this.state.status !== 'playing') {
        clearTimeout(this.connectTimer);
        this.retry.backoff.reset();
      }
      this.update({ status: 'playing', framesDecoded: frames, lastError: null });
    } else if (this.state.status === 'playing' && now - this.lastFrameAt >= VIDEO_PLAYER.stallMs) {
      this.fail(attempt, 'no new frame');
    }
  }

  /** Gives up the attempt and, unless stopped, schedules the next one. Later reports of it are ignored. */
  private fail(attempt: Attempt, reason: string): void {
    if (!attempt.live || this.current !== attempt) return;
    this.endAttempt();
    if (this.stopped) return;
    const delay = this.retry.schedule(() => {
      this.clearRetry();
      void this.attempt();
    });
    this.retryAt = this.now() + delay;
    this.update({
      status: 'retrying',
      framesDecoded: 0,
      retryInSeconds: Math.ceil(delay / 1000),
      lastError: reason,
    });
    this.countdownTimer = setInterval(() => {
      this.update({ retryInSeconds: Math.max(1, Math.ceil((this.retryAt - this.now()) / 1000)) });
    }, 1000);
  }

  private clearRetry(): void {
    this.retry.cancel();
    clearInterval(this.countdownTimer);
    this.countdownTimer = undefined;
  }

  private endAttempt(): void {
    const attempt = this.current;
    clearTimeout(this.connectTimer);
    clearInterval(this.sampleTimer);
    this.connectTimer = undefined;
    this.sampleTimer = undefined;
    if (!attempt) return;
    this.current = null;
    // First, so the cleanup callbacks the hangup below fires are ignored.
    attempt.live = false;
    this.options.video.srcObject = null;
    const { session, handle } = attempt;
    const connected = session?.isConnected() ?? false;
    try {
      // Requests only over a live connection; locally in any case.
      handle?.hangup(connected);
      handle?.detach({ noRequest: !connected });
      session?.destroy({ notifyDestroyed: false });
    } catch (error) {
      console.warn('Video: cleaning up the Janus session failed', error);
    }
  }

  private mark(attempt: Attempt, step: VideoStep): void {
    if (attempt.first && typeof performance.mark === 'function') performance.mark(`video:${step}`);
  }
}
