/**
 * A stand-in for janus.js (the `janus-gateway` package) in component tests: it records what the
 * page asks of Janus and lets the test play Janus's side (session up, offer, remote track,
 * webrtcup, errors, hangup) and the decoder's frame count.
 */
import type {
  JanusAttachOptions,
  JanusHandle,
  JanusSession,
  JanusSessionOptions,
  Jsep,
  StreamingMessage,
} from '../lib/janus-stream';

export const OFFER: Jsep = { type: 'offer', sdp: 'v=0 offer' };
export const ANSWER: Jsep = { type: 'answer', sdp: 'v=0 answer' };

/** The receiving side of the peer connection: decoded frames and the low-latency knobs. */
export class FakePeerConnection {
  framesDecoded: number | null = null;
  readonly receiver = {
    track: { kind: 'video' },
    jitterBufferTarget: 80 as number | null,
    playoutDelayHint: 0.1,
  };

  async getStats() {
    const stats = new Map<string, Record<string, unknown>>();
    if (this.framesDecoded !== null) {
      stats.set('in', { type: 'inbound-rtp', kind: 'video', framesDecoded: this.framesDecoded });
    }
    return stats;
  }

  getReceivers() {
    return [this.receiver];
  }
}

export class FakeHandle implements JanusHandle {
  readonly sent: Array<{ message: Record<string, unknown>; jsep?: Jsep }> = [];
  readonly answered: Array<{ jsep: Jsep; tracks: unknown }> = [];
  readonly pc = new FakePeerConnection();
  readonly webrtcStuff = { pc: this.pc as unknown as RTCPeerConnection };
  hungUp: boolean | null = null;
  detached: { noRequest?: boolean } | null = null;

  constructor(readonly callbacks: JanusAttachOptions) {}

  send(params: { message: Record<string, unknown>; jsep?: Jsep }) {
    this.sent.push(params);
  }

  createAnswer(params: Parameters<JanusHandle['createAnswer']>[0]) {
    this.answered.push({ jsep: params.jsep, tracks: params.tracks });
    params.success(ANSWER);
  }

  hangup(sendRequest?: boolean) {
    this.hungUp = sendRequest === true;
    this.callbacks.oncleanup();
  }

  detach(params?: { noRequest?: boolean }) {
    this.detached = params ?? {};
  }

  /** Janus: the streaming plugin answers `watch` with its offer. */
  serverOffer() {
    this.callbacks.onmessage({ result: { status: 'preparing' } }, OFFER);
  }

  serverMessage(message: StreamingMessage) {
    this.callbacks.onmessage(message);
  }

  /** The browser: the offered video track arrives. */
  remoteTrack() {
    const track = { kind: 'video', id: 'v' } as MediaStreamTrack;
    this.callbacks.onremotetrack(track, 'v', true);
    return track;
  }

  webrtcState(up: boolean) {
    this.callbacks.webrtcState(up);
  }

  iceState(state: string) {
    this.callbacks.iceState(state);
  }
}

export class FakeJanus implements JanusSession {
  static instances: FakeJanus[] = [];
  static webrtcSupported = true;
  static initialised = 0;
  readonly handles: FakeHandle[] = [];
  connected = false;
  destroyed = false;

  constructor(readonly options: JanusSessionOptions) {
    FakeJanus.instances.push(this);
  }

  static reset() {
    FakeJanus.instances = [];
    FakeJanus.webrtcSupported = true;
  }

  static get last(): FakeJanus {
    const janus = FakeJanus.instances.at(-1);
    if (!janus) throw new Error('no Janus session was created');
    return janus;
  }

  static init(options: { callback: () => void }) {
    FakeJanus.initialised += 1;
    options.callback();
  }

  static useDefaultDependencies(deps: unknown) {
    return deps;
  }

  static isWebrtcSupported() {
    return FakeJanus.webrtcSupported;
  }

  get handle(): FakeHandle {
    const handle = this.handles.at(-1);
    if (!handle) throw new Error('no plugin handle was attached');
    return handle;
  }

  attach(options: JanusAttachOptions) {
    const handle = new FakeHandle(options);
    this.handles.push(handle);
    options.success(handle);
  }

  isConnected() {
    return this.connected;
  }

  destroy() {
    this.destroyed = true;
  }

  /** Janus: the session is created. */
  serverReady() {
    this.connected = true;
    this.options.success();
  }

  /** The socket closed or Janus failed (janus.js reports both through `error`). */
  serverError(error = 'Lost connection to the server (is it down?)') {
    this.connected = false;
    this.options.error(error);
  }
}
