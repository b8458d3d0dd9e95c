/**
 * The drive channel of one controller link (issue 27): the WebRTC peer connection (werift, pure
 * TypeScript) that the driver's browser offers over its control socket, carrying one DataChannel
 * for drive commands, unordered and never retransmitted (DRIVE_CHANNEL). It owns the peer only:
 * what arrives on the channel goes to `onMessage` (the link runs it through the socket kit's
 * checks), and the link closes it when the control socket closes. The channel closing ends
 * nothing: the browser drives over the socket again, and only the socket's close stops the car.
 *
 * Limits, since every peer holds UDP ports: one peer per link (a new offer replaces the last),
 * offers at least DRIVE_CHANNEL.minOfferIntervalMs apart, DRIVE_CHANNEL.maxCandidates remote
 * candidates per offer, UDP only, one DataChannel (labelled `drive`) per peer. mDNS (`.local`)
 * host candidates, which browsers send instead of their addresses, are ignored rather than looked
 * up (werift would ask the server's network by multicast and give up after 10 s): the browser's
 * checks reach the server's own candidates and werift learns its address from them (ICE's
 * peer-reflexive candidates). The server does not trickle: its answer carries all its candidates.
 *
 * ICE as for the video: the browser uses the video's STUN and TURN servers (GET
 * /api/video/ice-servers), and the server, like its Janus, offers its host candidates only — it
 * must be reachable on its addresses, as Janus must. No STUN on this side also means no DNS look-up
 * and no STUN wait before the answer (a closed network made the first answer wait over 10 s).
 * Deployments say the rest (`network`): a public address announced as one more host candidate
 * (behind 1:1 NAT, DRIVE_CHANNEL_PUBLIC_IP) and the UDP ports to bind (DRIVE_CHANNEL_UDP_PORTS);
 * werift binds one port per address, the public one included (on every interface: the NAT
 * forwards to it). DRIVE_CHANNEL=off is the link's to refuse: no DriveChannel is made then.
 */
import { DRIVE_CHANNEL, ERROR_KEYS } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RTCDataChannel, RTCPeerConnection } from 'werift';
import type { Clock } from '../../clock.js';
import { HttpError } from '../../http/errors.js';

type Werift = typeof import('werift');

/**
 * werift takes about a second to load (on a 2-core machine): not at start-up, by the first
 * offer, once per process; the drives go over the socket meanwhile.
 */
let werift: Promise<Werift> | null = null;
const loadWerift = (): Promise<Werift> => {
  werift ??= import('werift');
  return werift;
};

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

export interface DriveChannelOptions {
  clock: Clock;
  log: FastifyBaseLogger;
  network: DriveChannelNetwork;
  /** Sends the answer on the control socket. */
  answer(sdp: string): void;
  /** One message received on the DataChannel, as bytes. */
  onMessage(data: Buffer): void;
}

/** A browser's ICE candidate as `rtc_candidate` carries it. */
export interface RemoteCandidate {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
}

/** Candidates worth giving to werift: UDP, with an address (not an mDNS name); '' ends them. */
function usable(candidate: string): boolean {
  if (candidate === '') return true;
  const fields = candidate.replace(/^a=/, '').split(' ');
  const [, , transport, , address] = fields;
  return transport?.toLowerCase() === 'udp' && address !== undefined && !address.endsWith('.local');
}

/** An offer of one DataChannel and nothing else (no audio or video for the server to take). */
function dataChannelOnly(sdp: string): boolean {
  const media = sdp.split(/\r?\n/).filter((line) => line.startsWith('m='));
  return media.length === 1 && media[0]?.startsWith('m=application ') === true;
}

const invalidOffer = () => new HttpError(400, 'Invalid drive channel offer', ERROR_KEYS.validation);

export class DriveChannel {
  #peer: RTCPeerConnection | null = null;
  /** The current offer's peer once it has answered (null: refused, replaced or closed). */
  #ready: Promise<RTCPeerConnection | null> = Promise.resolve(null);
  #channel: RTCDataChannel | null = null;
  /** Bumped by each offer and by close, so work of a replaced offer stops where it is. */
  #generation = 0;
  #candidates = 0;
  #lastOfferAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(readonly options: DriveChannelOptions) {}

  /**
   * The browser's offer: replaces the previous peer, answers once werift has gathered its
   * candidates. Throws (the socket answers `error`) when it comes too soon or does not parse.
   */
  async offer(sdp: string): Promise<void> {
    if (this.#closed) return;
    const now = this.options.clock.now().getTime();
    if (now - this.#lastOfferAt < DRIVE_CHANNEL.minOfferIntervalMs)
      throw new HttpError(429, 'Drive channel offers come too often', ERROR_KEYS.tooManyRequests);
    this.#lastOfferAt = now;
    if (!dataChannelOnly(sdp)) throw invalidOffer();
    this.#closePeer();
    const generation = ++this.#generation;
    this.#candidates = 0;
    const answered = this.#answer(generation, sdp);
    // Candidates wait for the answer: werift pairs them with its own, gathered by then.
    this.#ready = answered.then(({ peer }) => peer).catch(() => null);
    const { answer } = await answered;
    if (answer !== null && generation === this.#generation) this.options.answer(answer);
  }

  /** One of the browser's candidates for the current offer; ignored past the limits. */
  candidate(remote: RemoteCandidate): void {
    if (this.#closed || !usable(remote.candidate)) return;
    if (remote.candidate !== '' && ++this.#candidates > DRIVE_CHANNEL.maxCandidates) return;
    const generation = this.#generation;
    this.#ready
      .then((peer) => (peer && generation === this.#generation ? peer.addIceCandidate(remote) : undefined))
      .catch((error: unknown) => this.options.log.debug({ err: error }, 'drive channel: candidate refused'));
  }

  /** A message to the browser on the channel (a `drive-ack`); dropped when it is not open. */
  send(message: object): void {
    const channel = this.#channel;
    if (channel?.readyState !== 'open') return;
    try {
      channel.send(JSON.stringify(message));
    } catch {
      // Closing meanwhile: the browser's next drive goes over the socket.
    }
  }

  /** The control socket closed: the peer goes, and later offers are ignored. */
  close(): void {
    this.#closed = true;
    this.#generation += 1;
    this.#closePeer();
  }

  /**
   * A peer for the offer and its answer (werift loads on the first one); null when the offer was
   * replaced or the socket closed meanwhile. An offer werift cannot take throws.
   */
  async #answer(
    generation: number,
    sdp: string,
  ): Promise<{ peer: RTCPeerConnection | null; answer: string | null }> {
    let peer: RTCPeerConnection;
    try {
      const { RTCPeerConnection } = await loadWerift();
      if (generation !== this.#generation) return { peer: null, answer: null };
      const { publicIp, udpPorts } = this.options.network;
      // Host candidates only (the interfaces' IPv4 addresses, the public one, UDP); werift's
      // default would ask Google's STUN server.
      peer = new RTCPeerConnection({
        iceServers: [],
        iceUseIpv6: false,
        iceUseTcp: false,
        iceAdditionalHostAddresses: publicIp === null ? undefined : [publicIp],
        icePortRange: udpPorts === null ? undefined : [udpPorts.min, udpPorts.max],
      });
    } catch (error) {
      // The server's fault, not the driver's: no answer (no error on the page), the socket drives.
      this.options.log.error({ err: error }, 'drive channel unavailable');
      return { peer: null, answer: null };
    }
    this.#peer = peer;
    peer.onDataChannel.subscribe((channel) => this.#accept(peer, channel));
    peer.connectionStateChange.subscribe((state) => {
      // ICE or DTLS gave up: its ports are freed now (the browser offers again later).
      if (state === 'failed' && this.#peer === peer) this.#closePeer();
    });
    try {
      await peer.setRemoteDescription({ type: 'offer', sdp });
      await peer.setLocalDescription(await peer.createAnswer());
    } catch (error) {
      if (this.#peer !== peer) return { peer: null, answer: null };
      this.options.log.debug({ err: error }, 'drive channel: offer refused');
      this.#closePeer();
      throw invalidOffer();
    }
    if (this.#peer !== peer) return { peer: null, answer: null };
    return { peer, answer: peer.localDescription?.sdp ?? null };
  }

  #accept(peer: RTCPeerConnection, channel: RTCDataChannel): void {
    if (peer !== this.#peer || this.#channel || channel.label !== DRIVE_CHANNEL.label) {
      channel.close();
      return;
    }
    this.#channel = channel;
    channel.onMessage.subscribe((data) => this.options.onMessage(Buffer.from(data)));
    channel.stateChanged.subscribe((state) => {
      if (state === 'closed' && this.#channel === channel) this.#channel = null;
    });
  }

  #closePeer(): void {
    const peer = this.#peer;
    this.#peer = null;
    this.#channel = null;
    this.#ready = Promise.resolve(null);
    peer?.close().catch((error: unknown) => this.options.log.debug({ err: error }, 'drive channel: close'));
  }
}
