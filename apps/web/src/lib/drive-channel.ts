/**
 * The drive channel (issue 27): a WebRTC DataChannel from this page to the server for drive
 * commands only, unordered and never retransmitted (DRIVE_CHANNEL.options), so one lost packet
 * never holds back the commands behind it as it does on the control socket's TCP. It is signalled
 * over the control socket (`rtc_offer`, trickled `rtc_candidate`s → `rtc_answer`) with the video's
 * ICE servers. The server acknowledges each drive on the channel (`drive-ack`): the channel
 * *works* while an acknowledgement came within DRIVE_CHANNEL.ackTimeoutMs; the control socket
 * (control-socket.ts) carries the drives whenever it does not. A channel that closes, fails or is
 * not open within DRIVE_CHANNEL.openTimeoutMs is offered again after a backoff, for as long as
 * the control socket is open. A browser without RTCPeerConnection never opens one, nor does a
 * server without the drive channel (DRIVE_CHANNEL=off): it refuses the offer, and no other
 * follows on that socket.
 */
import {
  Backoff,
  DRIVE_CHANNEL,
  DriveChannelServerMessage,
  IceServersResponse,
  type RtcSignal,
} from '@telerace/protocol';
import { authFetch } from './auth-client';
import { RetryTimer } from './retry-timer';

/** The part of RTCDataChannel the drive channel uses; tests inject fakes. */
export interface ChannelLike {
  readonly readyState: RTCDataChannelState;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send(data: string): void;
  close(): void;
}

/** The part of RTCPeerConnection the drive channel uses; tests inject fakes. */
export interface PeerLike {
  readonly connectionState: RTCPeerConnectionState;
  readonly localDescription: { sdp: string } | null;
  onicecandidate: ((event: { candidate: RTCIceCandidate | null }) => void) | null;
  onconnectionstatechange: ((event: Event) => void) | null;
  createDataChannel(label: string, options: RTCDataChannelInit): ChannelLike;
  createOffer(): Promise<RTCSessionDescriptionInit>;
  setLocalDescription(description: RTCSessionDescriptionInit): Promise<void>;
  setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void>;
  close(): void;
}

export type PeerFactory = (configuration: RTCConfiguration) => PeerLike;

/** The browser's RTCPeerConnection, or null where there is none (then the socket drives alone). */
function browserPeerFactory(): PeerFactory | null {
  if (typeof RTCPeerConnection !== 'function') return null;
  return (configuration) => new RTCPeerConnection(configuration) as unknown as PeerLike;
}

/** The same STUN and TURN servers as the video (TURN credentials are short-lived: one fetch per offer). */
async function fetchIceServers(): Promise<RTCIceServer[]> {
  return (await authFetch('/video/ice-servers', {}, IceServersResponse)).iceServers;
}

export interface NumberedDrive {
  throttle: number;
  steer: number;
  seq: number;
}

export interface DriveChannelOptions {
  /** Sends on the control socket; false when it is not open. */
  signal(message: RtcSignal): boolean;
  /** Told whenever `isOpen` or `isWorking` changes. */
  onChange(): void;
  /** Default: GET /api/video/ice-servers. */
  iceServers?: () => Promise<RTCIceServer[]>;
  /** Default: the browser's RTCPeerConnection; null: none. */
  createPeer?: PeerFactory | null;
  /** Default: DRIVE_CHANNEL's retry delays. */
  backoff?: Backoff;
  /** Default: Date.now. */
  now?: () => number;
}

export class DriveChannel {
  private peer: PeerLike | null = null;
  private channel: ChannelLike | null = null;
  private working = false;
  private running = false;
  /** When a drive last went on the channel while it did not work (a probe). */
  private probedAt = Number.NEGATIVE_INFINITY;
  /** Bumped by each negotiation and by `stop`, so what a replaced one awaits is dropped. */
  private attempt = 0;
  private openTimer: ReturnType<typeof setTimeout> | undefined;
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly retry: RetryTimer;
  private readonly createPeer: PeerFactory | null;

  constructor(private readonly options: DriveChannelOptions) {
    this.createPeer = options.createPeer === undefined ? browserPeerFactory() : options.createPeer;
    this.retry = new RetryTimer(
      options.backoff ??
        new Backoff({ initialMs: DRIVE_CHANNEL.retryInitialMs, maxMs: DRIVE_CHANNEL.retryMaxMs }),
    );
  }

  get isOpen(): boolean {
    return this.channel?.readyState === 'open';
  }

  /** Open, and the server acknowledged a drive within DRIVE_CHANNEL.ackTimeoutMs. */
  get isWorking(): boolean {
    return this.working && this.isOpen;
  }

  /** The control socket is open: offer a channel (no-op without RTCPeerConnection). */
  start(): void {
    if (this.running || !this.createPeer) return;
    this.running = true;
    this.retry.backoff.reset();
    void this.negotiate();
  }

  /** The control socket closed: the channel goes, no retry (the next `start` offers again). */
  stop(): void {
    this.running = false;
    this.attempt += 1;
    this.retry.cancel();
    this.closePeer();
  }

  /**
   * The server refused the offer as it has no drive channel (errors.driveChannelOff): no more
   * offers on this socket, which drives alone. The next one (`start`) offers again, so a server
   * restarted with the channel on is heard.
   */
  serverOff(): void {
    this.stop();
    this.options.onChange();
  }

  /**
   * The server refused the offer for now (errors.driveChannelBusy: offers too often for this
   * member): the socket drives, and the channel is offered again after the backoff.
   */
  serverBusy(): void {
    if (this.peer) this.failed();
  }

  /** The server's `rtc_answer`. */
  answer(sdp: string): void {
    const peer = this.peer;
    peer?.setRemoteDescription({ type: 'answer', sdp }).catch(() => {
      if (this.peer === peer) this.failed();
    });
  }

  /**
   * Sends the drive on the channel while it works: true. Open but not working, the drive goes as
   * a probe, whose acknowledgement says the channel works again — at most one per
   * DRIVE_CHANNEL.repeatMs, since the socket carries every drive meanwhile and both count against
   * one message rate on the server — and the answer is false: the caller sends it on the socket.
   */
  send(drive: NumberedDrive): boolean {
    const channel = this.channel;
    if (channel?.readyState !== 'open') return false;
    const now = (this.options.now ?? Date.now)();
    if (!this.working) {
      if (now - this.probedAt < DRIVE_CHANNEL.repeatMs) return false;
      this.probedAt = now;
    }
    try {
      channel.send(JSON.stringify({ type: 'drive', ...drive }));
    } catch {
      return false;
    }
    return this.working;
  }

  private async negotiate(): Promise<void> {
    const create = this.createPeer;
    const attempt = ++this.attempt;
    if (!create) return;
    let iceServers: RTCIceServer[] = [];
    try {
      iceServers = await (this.options.iceServers ?? fetchIceServers)();
    } catch {
      // Without STUN and TURN the host candidates may still do (the same network, a public server).
    }
    if (attempt !== this.attempt) return;
    const peer = create({ iceServers });
    const channel = peer.createDataChannel(DRIVE_CHANNEL.label, { ...DRIVE_CHANNEL.options });
    this.peer = peer;
    this.channel = channel;
    const current = () => this.peer === peer;
    // Trickled once the offer is out: the server takes candidates for its current offer only.
    const early: RTCIceCandidate[] = [];
    let offered = false;
    const trickle = (candidate: RTCIceCandidate) =>
      this.options.signal({
        type: 'rtc_candidate',
        candidate: candidate.candidate,
        sdpMid: candidate.sdpMid,
        sdpMLineIndex: candidate.sdpMLineIndex,
      });
    peer.onicecandidate = ({ candidate }) => {
      if (!candidate || !current()) return;
      if (offered) trickle(candidate);
      else early.push(candidate);
    };
    peer.onconnectionstatechange = () => {
      if (current() && peer.connectionState === 'failed') this.failed();
    };
    channel.onopen = () => {
      if (!current()) return;
      clearTimeout(this.openTimer);
      this.retry.backoff.reset();
      this.options.onChange();
    };
    channel.onclose = () => {
      if (current()) this.failed();
    };
    channel.onmessage = (event) => {
      if (current()) this.receive(event.data);
    };
    this.openTimer = setTimeout(() => {
      if (current()) this.failed();
    }, DRIVE_CHANNEL.openTimeoutMs);
    try {
      await peer.setLocalDescription(await peer.createOffer());
    } catch {
      if (current()) this.failed();
      return;
    }
    if (!current()) return;
    const sdp = peer.localDescription?.sdp;
    if (!sdp || !this.options.signal({ type: 'rtc_offer', sdp })) {
      this.failed();
      return;
    }
    offered = true;
    for (const candidate of early) trickle(candidate);
  }

  /** A `drive-ack`: the channel works, until no other one comes within DRIVE_CHANNEL.ackTimeoutMs. */
  private receive(data: unknown): void {
    let parsed: unknown;
    try {
      parsed = typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      return;
    }
    if (!DriveChannelServerMessage.safeParse(parsed).success) return;
    clearTimeout(this.ackTimer);
    this.ackTimer = setTimeout(() => this.setWorking(false), DRIVE_CHANNEL.ackTimeoutMs);
    this.setWorking(true);
  }

  private setWorking(working: boolean): void {
    if (this.working === working) return;
    this.working = working;
    this.options.onChange();
  }

  /** The channel closed or never opened: the socket drives, and a new offer follows later. */
  private failed(): void {
    this.closePeer();
    this.options.onChange();
    if (this.running) this.retry.schedule(() => void this.negotiate());
  }

  private closePeer(): void {
    clearTimeout(this.openTimer);
    clearTimeout(this.ackTimer);
    this.working = false;
    this.probedAt = Number.NEGATIVE_INFINITY;
    const { peer, channel } = this;
    this.peer = null;
    this.channel = null;
    if (channel) {
      channel.onopen = null;
      channel.onclose = null;
      channel.onmessage = null;
      channel.close();
    }
    if (peer) {
      peer.onicecandidate = null;
      peer.onconnectionstatechange = null;
      peer.close();
    }
  }
}
