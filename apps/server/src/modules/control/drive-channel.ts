/**
 * The drive channel of one controller link (issue 27): the WebRTC peer connection (werift, pure
 * TypeScript) that the driver's browser offers over its control socket, carrying one DataChannel
 * for drive commands, unordered and never retransmitted (DRIVE_CHANNEL). The peer itself lives in
 * the drive channel worker (drive-channel-thread.ts, drive-channel-peers.ts), off the relay's
 * event loop; this side keeps the limits and the link's view of its peer. It owns the peer only:
 * what arrives on the channel goes to `onMessage` (the link runs it through the socket kit's
 * checks), and the link closes it when the control socket closes. The channel closing ends
 * nothing: the browser drives over the socket again, and only the socket's close stops the car.
 *
 * Limits, since every peer holds UDP ports and sends connectivity checks to the destinations a
 * member names (issue 39, docs/security.md "The drive channel"): one peer per link (a new offer
 * replaces the last, and the link's close — the server's or the browser's — ends it at once);
 * offers at least DRIVE_CHANNEL.minOfferIntervalMs apart on a socket and at most
 * DRIVE_CHANNEL.offersPerMinute per member and per car session, on every socket and instance
 * together; ICE credentials as RFC 8839 writes them (drive-channel-offer.ts); every remote
 * candidate, written in the offer's SDP or trickled, through one address policy
 * (drive-channel-addresses.ts) and one count of DRIVE_CHANNEL.maxCandidates; UDP only, one
 * DataChannel (labelled `drive`) per peer. The browser's mDNS host candidates are ignored rather
 * than looked up (werift would ask the server's network by multicast and give up after 10 s): the
 * browser's checks reach the server's own candidates and werift learns its address from them
 * (ICE's peer-reflexive candidates). The server does not trickle: its answer carries all its
 * candidates.
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
import type { Clock } from '../../clock.js';
import { HttpError } from '../../http/errors.js';
import type { LimitWindow } from '../../limit-window.js';
import { type AddressPolicy, addressPolicy, candidateVerdict } from './drive-channel-addresses.js';
import { readOffer } from './drive-channel-offer.js';
import type { DriveChannelNetwork, RemoteCandidate } from './drive-channel-peers.js';
import { driveChannelThread, type OfferOutcome } from './drive-channel-thread.js';

export type { DriveChannelNetwork, RemoteCandidate } from './drive-channel-peers.js';

/**
 * Whose offers these are: each offer is taken off every key's budget (a driver's: `member:<id>`
 * and `session:<id>`; a car's: `car:<id>`), which must all have room.
 */
export interface DriveChannelOwner {
  keys: readonly string[];
  /** DRIVE_CHANNEL.offersPerMinute per key, on every instance. */
  offers: LimitWindow<string>;
}

export interface DriveChannelOptions {
  clock: Clock;
  log: FastifyBaseLogger;
  network: DriveChannelNetwork;
  owner: DriveChannelOwner;
  /** The DataChannel's label (DRIVE_CHANNEL.label, CAR_CHANNEL.label); a channel with another is closed. */
  label: string;
  /**
   * Whether the remote side's candidates are used (through the address policy): a browser's may
   * be. A car's never are: it dials out, and its checks reach the server from behind any NAT.
   */
  remoteCandidates: boolean;
  /** Sends the answer on the control socket. */
  answer(sdp: string): void;
  /** One message received on the DataChannel, as bytes. */
  onMessage(data: Buffer): void;
}

const invalidOffer = () => new HttpError(400, 'Invalid drive channel offer', ERROR_KEYS.validation);
const busy = () => new HttpError(429, 'Drive channel offers come too often', ERROR_KEYS.driveChannelBusy);

export class DriveChannel {
  /** The current offer's peer in the drive channel worker; null: none (refused, replaced or closed). */
  #peerId: number | null = null;
  /** The current offer's address policy (the server's own addresses as they were at the offer). */
  #policy: AddressPolicy | null = null;
  /** Remote candidates considered for the current offer, its SDP's and trickled ones together. */
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
    const { offers } = driveChannelThread.counters;
    const now = this.options.clock.now().getTime();
    if (now - this.#lastOfferAt < DRIVE_CHANNEL.minOfferIntervalMs) {
      offers.busy += 1;
      throw busy();
    }
    this.#lastOfferAt = now;
    const reading = readOffer(sdp);
    if ('invalid' in reading) {
      offers.refused += 1;
      this.options.log.debug({ reason: reading.invalid }, 'drive channel: offer refused');
      throw invalidOffer();
    }
    const withinBudget = await this.#withinBudget();
    if (this.#closed) return;
    if (!withinBudget) {
      offers.busy += 1;
      throw busy();
    }
    this.#closePeer();
    this.#candidates = 0;
    this.#policy = addressPolicy(this.options.network);
    const { id, outcome } = driveChannelThread.offer(
      reading.sdp,
      this.options.network,
      this.options.label,
      (data) => this.options.onMessage(data),
    );
    this.#peerId = id;
    // The SDP's candidates as if trickled: the same policy, the same count.
    for (const candidate of reading.candidates) this.candidate({ candidate, sdpMid: null, sdpMLineIndex: 0 });
    const result = await outcome;
    // Replaced by a newer offer, or the socket closed, meanwhile: nobody waits for this answer.
    if (this.#peerId === id) this.#ended(result);
  }

  /** The current offer's end: answered, or closed with the driver's error or the server's log line. */
  #ended(result: OfferOutcome): void {
    const { offers } = driveChannelThread.counters;
    if ('answer' in result) {
      offers.answered += 1;
      this.options.answer(result.answer);
      return;
    }
    this.#closePeer();
    if ('refused' in result) {
      offers.refused += 1;
      this.options.log.debug({ reason: result.refused }, 'drive channel: offer refused');
      throw invalidOffer();
    }
    // The server's fault, not the driver's: no answer (no error on the page), the socket drives.
    if ('noCandidates' in result) {
      offers.noCandidates += 1;
      this.options.log.error(
        'drive channel: no address of the server to offer (are its network interfaces visible? a systemd unit needs AF_NETLINK in RestrictAddressFamilies); drivers stay on the socket',
      );
      return;
    }
    offers.unavailable += 1;
    this.options.log.error({ reason: result.unavailable }, 'drive channel unavailable');
  }

  /** One of the browser's candidates for the current offer; ignored past the limits and the policy. */
  candidate(remote: RemoteCandidate): void {
    const policy = this.#policy;
    if (this.#closed || this.#peerId === null || !policy || !this.options.remoteCandidates) return;
    const { counters } = driveChannelThread;
    if (remote.candidate !== '') {
      if (++this.#candidates > DRIVE_CHANNEL.maxCandidates) {
        counters.candidates.overLimit += 1;
        return;
      }
      const verdict = candidateVerdict(remote.candidate, policy);
      if ('ignore' in verdict) {
        counters.candidates.ignored += 1;
        return;
      }
      if ('refuse' in verdict) {
        counters.candidates.refused[verdict.refuse] += 1;
        return;
      }
      counters.candidates.taken += 1;
    }
    // The worker holds it until the offer is answered (werift pairs it with its own candidates).
    driveChannelThread.candidate(this.#peerId, remote);
  }

  /** A message to the other side on the channel (a `drive-ack`); dropped when it is not open. */
  send(message: object): void {
    this.sendText(JSON.stringify(message));
  }

  /** The same, already JSON (a car's drive frame). */
  sendText(text: string): void {
    if (this.#peerId !== null) driveChannelThread.send(this.#peerId, text);
  }

  /** The control socket closes (or is being closed): the peer goes, and later offers are ignored. */
  close(): void {
    this.#closed = true;
    this.#closePeer();
  }

  /** One offer off every key's budget; all must have room. */
  async #withinBudget(): Promise<boolean> {
    const { keys, offers } = this.options.owner;
    let room = true;
    for (const key of keys) room = (await offers.take(key)) && room;
    return room;
  }

  #closePeer(): void {
    if (this.#peerId !== null) driveChannelThread.close(this.#peerId);
    this.#peerId = null;
  }
}
