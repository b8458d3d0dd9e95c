/**
 * The WebRTC side of every drive channel (issue 27): one werift peer per offer, by id, each
 * taking one DataChannel. It runs in the drive channel worker (drive-channel-worker.ts), off the
 * relay's event loop: werift's DTLS and SCTP cost ~0.5 ms of CPU per drive, which on the main
 * thread held up every other car's commands (`npm run bench -- relay-channels`: a socket driver's
 * p99 1–3 ms alone, 5.2–5.4 ms beside 10 channel drivers). The limits and the protocol stay with
 * the control link on the main thread (drive-channel.ts); this side only answers offers, takes
 * candidates, passes the channel's messages on and sends what it is given.
 *
 * The address policy (drive-channel-addresses.ts) is checked here a second time, whatever the
 * main thread already checked: on each candidate before werift sees it (werift would look a name
 * up by multicast DNS before any pair filter runs), and on every pair werift forms (its
 * candidate-pair filter). The only pairs the policy does not judge are peer-reflexive ones, which
 * werift learns from a browser's check that reached it from that address.
 */
import type { CandidatePair, RTCDataChannel, RTCPeerConnection } from 'werift';
import {
  type AddressPolicy,
  type AllowedNetwork,
  addressPolicy,
  candidateVerdict,
  destinationRefusal,
} from './drive-channel-addresses.js';

/** UDP ports, both included. */
export interface UdpPortRange {
  min: number;
  max: number;
}

/**
 * Where browsers reach the server's peers (DRIVE_CHANNEL_PUBLIC_IP, DRIVE_CHANNEL_UDP_PORTS), and
 * where the peers may send (DRIVE_CHANNEL_ALLOWED_NETWORKS, drive-channel-addresses.ts).
 */
export interface DriveChannelNetwork {
  /** Announced beside the interfaces' addresses; null: those only. */
  publicIp: string | null;
  /** null: ports the system picks. */
  udpPorts: UdpPortRange | null;
  /** Special-purpose networks the operator allows remote candidates in (a LAN deployment). */
  allowedNetworks: AllowedNetwork[];
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
  /**
   * The answer has no candidate of the server's: no browser could reach it. The server's fault too,
   * typically its interfaces hidden from it (a unit whose RestrictAddressFamilies leaves out
   * AF_NETLINK: os.networkInterfaces() is then empty).
   */
  | { ev: 'no-candidates'; id: number }
  /** One message received on the peer's DataChannel. */
  | { ev: 'message'; id: number; data: Uint8Array }
  /** How many peers are open now (each holds UDP ports), after one opened or closed. */
  | { ev: 'peers'; open: number };

interface Peer {
  /** Null while werift loads: a close meanwhile removes the entry, and no peer is made. */
  peer: RTCPeerConnection | null;
  label: string;
  channel: RTCDataChannel | null;
  policy: AddressPolicy;
  /** Settles once the answer is made (candidates wait for it: werift pairs them with its own). */
  answered: Promise<boolean>;
  settle(answered: boolean): void;
}

type Werift = typeof import('werift');

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** werift's candidate-pair filter: a pair to a destination the policy refuses is never checked. */
const pairFilter =
  (policy: AddressPolicy) =>
  ({ remoteCandidate }: CandidatePair): boolean =>
    remoteCandidate.type === 'prflx' ||
    destinationRefusal(remoteCandidate.host, remoteCandidate.port, policy) === null;

export class ChannelPeers {
  readonly #peers = new Map<number, Peer>();
  #open = 0;
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
    let settle: (answered: boolean) => void = () => {};
    const answered = new Promise<boolean>((resolve) => (settle = resolve));
    const policy = addressPolicy(network);
    // In the map before werift loads, so that a close arriving meanwhile is not lost.
    const entry: Peer = { peer: null, label, channel: null, policy, answered, settle };
    this.#peers.set(id, entry);
    let peer: RTCPeerConnection;
    try {
      this.#werift ??= import('werift');
      const { RTCPeerConnection } = await this.#werift;
      // Closed while werift loaded: no peer, no port.
      if (this.#peers.get(id) !== entry) return;
      // Host candidates only (the interfaces' IPv4 addresses, the public one, UDP); werift's
      // default would ask Google's STUN server.
      peer = new RTCPeerConnection({
        iceServers: [],
        iceUseIpv6: false,
        iceUseTcp: false,
        iceAdditionalHostAddresses: network.publicIp === null ? undefined : [network.publicIp],
        icePortRange: network.udpPorts === null ? undefined : [network.udpPorts.min, network.udpPorts.max],
        iceFilterCandidatePair: pairFilter(policy),
      });
    } catch (error) {
      this.#peers.delete(id);
      settle(false);
      this.post({ ev: 'unavailable', id, reason: reasonOf(error) });
      return;
    }
    entry.peer = peer;
    this.#counted(+1);
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
    const answer = peer.localDescription?.sdp ?? '';
    if (!/^a=candidate:/m.test(answer)) {
      this.#close(id);
      this.post({ ev: 'no-candidates', id });
      return;
    }
    this.post({ ev: 'answer', id, sdp: answer });
  }

  #candidate(id: number, candidate: RemoteCandidate): void {
    const entry = this.#peers.get(id);
    if (!entry) return;
    if (candidate.candidate !== '' && !('take' in candidateVerdict(candidate.candidate, entry.policy)))
      return;
    entry.answered
      .then((answered) =>
        answered && this.#peers.get(id) === entry ? entry.peer?.addIceCandidate(candidate) : undefined,
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
    entry.settle(false);
    if (!entry.peer) return;
    this.#counted(-1);
    entry.peer.close().catch(() => {});
  }

  #counted(change: number): void {
    this.#open += change;
    this.post({ ev: 'peers', open: this.#open });
  }
}
