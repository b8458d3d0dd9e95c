/** RTCPeerConnection and RTCDataChannel stand-ins for the drive channel's tests (the network boundary). */
import type { ChannelLike, PeerFactory, PeerLike } from '../lib/drive-channel';

export class FakeChannel implements ChannelLike {
  readyState: RTCDataChannelState = 'connecting';
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: string[] = [];

  constructor(
    readonly label: string,
    readonly options: RTCDataChannelInit,
  ) {}

  /** The messages sent, parsed. */
  get messages(): Array<{ type: string } & Record<string, unknown>> {
    return this.sent.map((text) => JSON.parse(text));
  }

  send(data: string): void {
    if (this.readyState !== 'open') throw new Error('send on a channel that is not open');
    this.sent.push(data);
  }

  close(): void {
    this.readyState = 'closed';
  }

  /** The connection is up: the channel opens. */
  remoteOpen(): void {
    this.readyState = 'open';
    this.onopen?.(new Event('open'));
  }

  /** The server sends on the channel. */
  remoteSend(message: unknown): void {
    const data = typeof message === 'string' ? message : JSON.stringify(message);
    this.onmessage?.(new MessageEvent('message', { data }));
  }

  /** The channel closes from the far side or the network. */
  remoteClose(): void {
    this.readyState = 'closed';
    this.onclose?.(new Event('close'));
  }
}

export class FakePeer implements PeerLike {
  static instances: FakePeer[] = [];
  connectionState: RTCPeerConnectionState = 'new';
  localDescription: { sdp: string } | null = null;
  remoteDescription: RTCSessionDescriptionInit | null = null;
  onicecandidate: ((event: { candidate: RTCIceCandidate | null }) => void) | null = null;
  onconnectionstatechange: ((event: Event) => void) | null = null;
  readonly channels: FakeChannel[] = [];
  closed = false;

  constructor(readonly configuration: RTCConfiguration) {
    FakePeer.instances.push(this);
  }

  static reset(): void {
    FakePeer.instances = [];
  }

  static get last(): FakePeer {
    const peer = FakePeer.instances.at(-1);
    if (!peer) throw new Error('no peer connection was made');
    return peer;
  }

  get channel(): FakeChannel {
    const channel = this.channels[0];
    if (!channel) throw new Error('no data channel was made');
    return channel;
  }

  createDataChannel(label: string, options: RTCDataChannelInit): FakeChannel {
    const channel = new FakeChannel(label, options);
    this.channels.push(channel);
    return channel;
  }

  async createOffer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'offer', sdp: `v=0 offer ${FakePeer.instances.indexOf(this) + 1}` };
  }

  async setLocalDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.localDescription = { sdp: description.sdp ?? '' };
  }

  async setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.remoteDescription = description;
  }

  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }

  /** The browser found one of its ICE candidates. */
  gather(candidate: string): void {
    this.onicecandidate?.({ candidate: { candidate, sdpMid: '0', sdpMLineIndex: 0 } as RTCIceCandidate });
  }

  /** ICE or DTLS gave up. */
  fail(): void {
    this.connectionState = 'failed';
    this.onconnectionstatechange?.(new Event('connectionstatechange'));
  }
}

export const fakePeerFactory: PeerFactory = (configuration) => new FakePeer(configuration);
