/**
 * The WebRTC side of every drive channel (issue 27): one werift peer per offer, by id, each
 * taking one DataChannel. It runs in the drive channel worker (drive-channel-worker.ts), off the
 * relay's event loop: werift's DTLS and SCTP cost ~0.5 ms of CPU per drive, which on the main
 * thread held up every other car's commands (`npm run bench -- relay-channels`: a socket driver's
 * p99 1–3 ms alone, 5.2–5.4 ms beside 10 channel drivers). The limits and the protocol stay with
 * the control link on the main thread (drive-channel.ts); this side only answers offers, takes
 * candidates, passes the channel's messages on and sends what it is given.
 */
import type { RTCDataChannel, RTCPeerConnection } from 'werift';

/** UDP ports, both included. */
export interface UdpPortRange {
  min: number;
  max: number;
}

/** Where browsers reach the server's peers (DRIVE_CHANNEL_PUBLIC_IP, DRIVE_CHANNEL_UDP_PORTS). */
export interface DriveChannelNetwork {
  /** Announced beside the interfaces' addresses; null: those only. */
  publicIp: string | null;
  /** null: ports the system picks. */
  udpPorts: UdpPortRange | null;
}

/** A browser's ICE candidate as `rtc_candidate` carries it. */
export interface RemoteCandidate {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
}

/** What the main thread asks of the peers. */
export type ToPeers =
  | { op: 'offer'; id: number; sdp: string; network: DriveChannelNetwork; label: string }
  | { op: 'candidate'; id: number; candidate: RemoteCandidate }
  | { op: 'send'; id: number; text: string }
  | { op: 'close'; id: number };

/** What the peers tell the main thread. */
export type FromPeers =
  /** The offer's answer, with every candidate (the server does not trickle). */
  | { ev: 'answer'; id: number; sdp: string }
  /** werift could not take the offer: the driver's error. */
  | { ev: 'refused'; id: number; reason: string }
  /** werift could not make a peer at all: the server's fault. */
  | { ev: 'unavailable'; id: number; reason: string }
  /** One message received on the peer's DataChannel. */
  | { ev: 'message'; id: number; data: Uint8Array };

interface Peer {
  peer: RTCPeerConnection;
  label: string;
  channel: RTCDataChannel | null;
  /** Settles once the answer is made (candidates wait for it: werift pairs them with its own). */
  answered: Promise<boolean>;
}

type Werift = typeof import('werift');

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ChannelPeers {
  readonly #peers = new Map<number, Peer>();
  #werift: Promise<Werift> | null = null;

  constructor(readonly post: (message: FromPeers) => void) {}

  handle(message: ToPeers): void {
    switch (message.op) {
      case 'offer':
        void this.#offer(message.id, message.sdp, message.network, message.label);
        return;
      case 'candidate':
        this.#candidate(message.id, message.candidate);
        return;
      case 'send':
        this.#send(message.id, message.text);
        return;
      case 'close':
        this.#close(message.id);
        return;
    }
  }

  async #offer(id: number, sdp: string, network: DriveChannelNetwork, label: string): Promise<void> {
    let peer: RTCPeerConnection;
    try {
      this.#werift ??= import('werift');
      const { RTCPeerConnection } = await this.#werift;
      // Host candidates only (the interfaces' IPv4 addresses, the public one, UDP); werift's
      // default would ask Google's STUN server.
      peer = new RTCPeerConnection({
        iceServers: [],
        iceUseIpv6: false,
        iceUseTcp: false,
        iceAdditionalHostAddresses: network.publicIp === null ? undefined : [network.publicIp],
        icePortRange: network.udpPorts === null ? undefined : [network.udpPorts.min, network.udpPorts.max],
      });
    } catch (error) {
      this.post({ ev: 'unavailable', id, reason: reasonOf(error) });
      return;
    }
    let settle: (answered: boolean) => void = () => {};
    const entry: Peer = {
      peer,
      label,
      channel: null,
      answered: new Promise((resolve) => (settle = resolve)),
    };
    this.#peers.set(id, entry);
    peer.onDataChannel.subscribe((channel) => this.#accept(id, entry, channel));
    peer.connectionStateChange.subscribe((state) => {
      // ICE or DTLS gave up: its ports are freed now (the browser offers again later).
      if (state === 'failed') this.#close(id);
    });
    try {
      await peer.setRemoteDescription({ type: 'offer', sdp });
      await peer.setLocalDescription(await peer.createAnswer());
    } catch (error) {
      settle(false);
      if (this.#peers.get(id) !== entry) return;
      this.#close(id);
      this.post({ ev: 'refused', id, reason: reasonOf(error) });
      return;
    }
    settle(true);
    // Closed meanwhile (replaced, or its socket closed): nobody waits for the answer.
    if (this.#peers.get(id) !== entry) return;
    this.post({ ev: 'answer', id, sdp: peer.localDescription?.sdp ?? '' });
  }

  #candidate(id: number, candidate: RemoteCandidate): void {
    const entry = this.#peers.get(id);
    entry?.answered
      .then((answered) =>
        answered && this.#peers.get(id) === entry ? entry.peer.addIceCandidate(candidate) : undefined,
      )
      // A candidate werift cannot take is one path fewer, not an error.
      .catch(() => {});
  }

  #accept(id: number, entry: Peer, channel: RTCDataChannel): void {
    if (this.#peers.get(id) !== entry || entry.channel || channel.label !== entry.label) {
      channel.close();
      return;
    }
    entry.channel = channel;
    channel.onMessage.subscribe((data) =>
      this.post({ ev: 'message', id, data: typeof data === 'string' ? Buffer.from(data) : data }),
    );
    channel.stateChanged.subscribe((state) => {
      if (state === 'closed' && entry.channel === channel) entry.channel = null;
    });
  }

  /** Dropped when the channel is not open (the browser's next drive goes over the socket). */
  #send(id: number, text: string): void {
    const channel = this.#peers.get(id)?.channel;
    if (channel?.readyState !== 'open') return;
    try {
      channel.send(text);
    } catch {
      // Closing meanwhile.
    }
  }

  #close(id: number): void {
    const entry = this.#peers.get(id);
    if (!entry) return;
    this.#peers.delete(id);
    entry.peer.close().catch(() => {});
  }
}
