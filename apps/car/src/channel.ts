/**
 * The car's drive channel (issue 42, docs/car.md "The drive channel"): a WebRTC DataChannel the
 * agent offers over its car socket once the server's `welcome` says it answers them. Unordered and
 * never retransmitted (CAR_CHANNEL.options): on venue Wi-Fi or 4G one lost TCP segment held every
 * later drive on the socket back for 200 ms or more, long enough to trip the car's deadman while
 * its driver was still steering; here a lost drive is simply replaced by the next one.
 *
 * The car dials out only: the offer carries no candidate (the server would not send to them
 * anyway), the car's connectivity checks go to the server's candidates from the answer, through
 * whatever NAT the car sits behind, and the server answers where they came from. The channel
 * carries the authority of the car socket that signalled it: DTLS with the fingerprints exchanged
 * over that authenticated socket, so only the server that admitted the car can drive through it.
 *
 * It is a second path, never the only one: the server sends every drive and stop on both, the
 * agent applies a command only when its `seq` is newer (NewestCommand), and the deadman hears
 * either. A channel that fails or closes is offered again with a backoff while the socket lives;
 * the socket's close ends it.
 */
import { Backoff, CAR_CHANNEL, type CarChannelAgentMessage, CarChannelMessage } from '@telerace/protocol';
import type { RTCDataChannel, RTCPeerConnection } from 'werift';

export interface CarChannelOptions {
  /** Sends the offer on the car socket; false when the socket is not open. */
  offer(sdp: string): boolean;
  /** One valid command received on the channel. */
  onMessage(message: CarChannelMessage): void;
  log(line: string): void;
  backoff?: Backoff;
  /** Offer to open before it is given up (CAR_CHANNEL.openTimeoutMs). */
  openTimeoutMs?: number;
  /**
   * The server's answer as the car's peer takes it; by default as it came. The loss bench
   * (`npm run bench -- lossy`) moves its candidates to proxies that impair the channel's UDP.
   */
  takeAnswer?: (sdp: string) => Promise<string>;
}

export type CarChannelState = 'off' | 'offering' | 'open';

type Werift = typeof import('werift');

/** The offer as sent: without candidates (the server uses none of the car's). */
export function offerWithoutCandidates(sdp: string): string {
  return sdp
    .split('\r\n')
    .filter((line) => !line.startsWith('a=candidate') && line !== 'a=end-of-candidates')
    .join('\r\n');
}

export class CarChannel {
  #state: CarChannelState = 'off';
  #peer: RTCPeerConnection | null = null;
  #channel: RTCDataChannel | null = null;
  /** While the socket is welcomed and the server answers offers: a lost channel is offered again. */
  #wanted = false;
  #retry: NodeJS.Timeout | undefined;
  #openTimer: NodeJS.Timeout | undefined;
  #werift: Promise<Werift> | null = null;
  readonly #backoff: Backoff;

  constructor(private readonly options: CarChannelOptions) {
    this.#backoff =
      options.backoff ??
      new Backoff({ initialMs: CAR_CHANNEL.retryInitialMs, maxMs: CAR_CHANNEL.retryMaxMs });
  }

  get state(): CarChannelState {
    return this.#state;
  }

  /** The socket was welcomed by a server that answers offers: open the channel (and keep it open). */
  start(): void {
    this.#wanted = true;
    if (this.#state === 'off' && this.#retry === undefined) void this.#offer();
  }

  /** The server's `rtc_answer` to the current offer. */
  async answer(sdp: string): Promise<void> {
    const peer = this.#peer;
    if (!peer || this.#state !== 'offering') return;
    try {
      const taken = this.options.takeAnswer ? await this.options.takeAnswer(sdp) : sdp;
      if (this.#peer !== peer) return;
      await peer.setRemoteDescription({ type: 'answer', sdp: taken });
    } catch (error) {
      this.#failed(`the server's answer was refused: ${(error as Error).message}`);
    }
  }

  /** The server refused the offer (an `error` on the socket): tried again after the backoff. */
  refused(reason: string): void {
    if (this.#state === 'offering') this.#failed(`offer refused: ${reason}`);
  }

  /** A message to the server on the channel (a link ping); false when it is not open. */
  send(message: CarChannelAgentMessage): boolean {
    const channel = this.#channel;
    if (this.#state !== 'open' || channel?.readyState !== 'open') return false;
    try {
      channel.send(JSON.stringify(message));
      return true;
    } catch {
      return false;
    }
  }

  /** The socket closed (or the agent stops): the channel goes, and is not offered again until asked. */
  stop(): void {
    this.#wanted = false;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#teardown();
  }

  async #offer(): Promise<void> {
    this.#retry = undefined;
    if (!this.#wanted || this.#state !== 'off') return;
    this.#state = 'offering';
    let peer: RTCPeerConnection;
    let channel: RTCDataChannel;
    try {
      this.#werift ??= import('werift');
      const { RTCPeerConnection } = await this.#werift;
      if (!this.#wanted || this.#state !== 'offering') return;
      // No STUN: the car's checks reach the server's own candidates, and NAT maps them on the way.
      peer = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false, iceUseTcp: false });
      channel = peer.createDataChannel(CAR_CHANNEL.label, { ...CAR_CHANNEL.options });
    } catch (error) {
      this.#state = 'off';
      this.options.log(`drive channel unavailable: ${(error as Error).message}; driving over the socket`);
      return;
    }
    this.#peer = peer;
    this.#channel = channel;
    channel.stateChanged.subscribe((state) => {
      if (this.#channel !== channel) return;
      if (state === 'open') this.#opened();
      if (state === 'closed') this.#failed('closed');
    });
    channel.onMessage.subscribe((data) => {
      if (this.#channel === channel) this.#receive(data);
    });
    peer.connectionStateChange.subscribe((state) => {
      if (this.#peer === peer && state === 'failed') this.#failed('ICE or DTLS failed');
    });
    this.#openTimer = setTimeout(
      () => this.#failed(`not open within ${this.options.openTimeoutMs ?? CAR_CHANNEL.openTimeoutMs} ms`),
      this.options.openTimeoutMs ?? CAR_CHANNEL.openTimeoutMs,
    );
    try {
      await peer.setLocalDescription(await peer.createOffer());
    } catch (error) {
      this.#failed(`no offer: ${(error as Error).message}`);
      return;
    }
    if (this.#peer !== peer) return;
    const sdp = offerWithoutCandidates(peer.localDescription?.sdp ?? '');
    if (!this.options.offer(sdp)) this.#failed('the socket is not open');
  }

  #opened(): void {
    clearTimeout(this.#openTimer);
    this.#state = 'open';
    this.#backoff.reset();
    this.options.log('drive channel open: drives come by the channel and the socket');
  }

  #receive(data: string | Buffer): void {
    let message: CarChannelMessage;
    try {
      const parsed = CarChannelMessage.safeParse(
        JSON.parse(typeof data === 'string' ? data : data.toString()),
      );
      if (!parsed.success) throw new Error('invalid');
      message = parsed.data;
    } catch {
      // Not a command of the server's: nothing to apply.
      return;
    }
    this.options.onMessage(message);
  }

  /** This attempt is over: its peer goes, and another offer follows after the backoff. */
  #failed(reason: string): void {
    if (this.#state === 'off') return;
    const wasOpen = this.#state === 'open';
    this.#teardown();
    if (!this.#wanted) return;
    const delay = this.#backoff.next();
    this.options.log(
      `drive channel ${wasOpen ? 'lost' : 'not opened'} (${reason}); driving over the socket, offering again in ${delay} ms`,
    );
    this.#retry = setTimeout(() => void this.#offer(), delay);
  }

  #teardown(): void {
    clearTimeout(this.#openTimer);
    this.#state = 'off';
    const peer = this.#peer;
    this.#peer = null;
    this.#channel = null;
    peer?.close().catch(() => {});
  }
}
