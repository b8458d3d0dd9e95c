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
import type { Clock } from '../../clock.js';
import { HttpError } from '../../http/errors.js';
import type { DriveChannelNetwork, RemoteCandidate } from './drive-channel-peers.js';
import { driveChannelThread } from './drive-channel-thread.js';

export type { DriveChannelNetwork, RemoteCandidate, UdpPortRange } from './drive-channel-peers.js';

export interface DriveChannelOptions {
  clock: Clock;
  log: FastifyBaseLogger;
  network: DriveChannelNetwork;
  /** Sends the answer on the control socket. */
  answer(sdp: string): void;
  /** One message received on the DataChannel, as bytes. */
  onMessage(data: Buffer): void;
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
  /** The current offer's peer in the drive channel worker; null: none (refused, replaced or closed). */
  #peerId: number | null = null;
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
    this.#candidates = 0;
    const { id, outcome } = driveChannelThread.offer(sdp, this.options.network, DRIVE_CHANNEL.label, (data) =>
      this.options.onMessage(data),
    );
    this.#peerId = id;
    const result = await outcome;
    // Replaced by a newer offer, or the socket closed, meanwhile: nobody waits for this answer.
    if (this.#peerId !== id) return;
    if ('answer' in result) {
      this.options.answer(result.answer);
      return;
    }
    this.#closePeer();
    if ('refused' in result) {
      this.options.log.debug({ reason: result.refused }, 'drive channel: offer refused');
      throw invalidOffer();
    }
    // The server's fault, not the driver's: no answer (no error on the page), the socket drives.
    this.options.log.error({ reason: result.unavailable }, 'drive channel unavailable');
  }

  /** One of the browser's candidates for the current offer; ignored past the limits. */
  candidate(remote: RemoteCandidate): void {
    if (this.#closed || this.#peerId === null || !usable(remote.candidate)) return;
    if (remote.candidate !== '' && ++this.#candidates > DRIVE_CHANNEL.maxCandidates) return;
    // The worker holds it until the offer is answered (werift pairs it with its own candidates).
    driveChannelThread.candidate(this.#peerId, remote);
  }

  /** A message to the browser on the channel (a `drive-ack`); dropped when it is not open. */
  send(message: object): void {
    if (this.#peerId !== null) driveChannelThread.send(this.#peerId, JSON.stringify(message));
  }

  /** The control socket closed: the peer goes, and later offers are ignored. */
  close(): void {
    this.#closed = true;
    this.#closePeer();
  }

  #closePeer(): void {
    if (this.#peerId !== null) driveChannelThread.close(this.#peerId);
    this.#peerId = null;
  }
}
