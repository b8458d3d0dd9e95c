/**
 * A driver's drive channel without a browser (issue 27): a werift peer that offers over a real
 * control socket as the web page does (`rtc_offer`, trickled `rtc_candidate`s, `rtc_answer`), and
 * drives on the unordered, never-retransmitted DataChannel, keeping the server's `drive-ack`s.
 */
import { DRIVE_CHANNEL } from '@telerace/protocol';
import type { RTCDataChannel, RTCPeerConnection } from 'werift';
import type WebSocket from 'ws';

/** The control socket as the tests hold it (a TestSocket's or a bare `ws`). */
type ControlWebSocket = Pick<WebSocket, 'on' | 'off' | 'send'>;

/**
 * A browser's offer of a drive channel as it sends it (candidates trickled apart), for a test
 * that only needs the server's answer: the peer behind it never connects.
 */
export const SAMPLE_DRIVE_OFFER = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:tEle',
  'a=ice-pwd:raceDriveChannelOffer01',
  'a=ice-options:trickle',
  `a=fingerprint:sha-256 ${Array.from({ length: 32 }, (_, i) => ((i * 7) % 256).toString(16).padStart(2, '0')).join(':')}`,
  'a=setup:actpass',
  'a=mid:0',
  'a=sctp-port:5000',
  'a=max-message-size:262144',
  '',
].join('\r\n');

/** How a browser shows its host candidates: an mDNS name instead of the address. */
const asMdnsName = (line: string): string =>
  line.replace(
    / (\d{1,3}(?:\.\d{1,3}){3}) (\d+) typ host/,
    ' 0b5e1f5c-7d1a-4c6e-9a1b-2f0e6d7c8a9b.local $2 typ host',
  );

export class DriveChannelClient {
  /** The numbers the server acknowledged on the channel, in arrival order. */
  readonly acks: number[] = [];
  /** Resolves when the channel closes (the client's close or the server's). */
  readonly closed: Promise<void>;
  readonly #ackWaiters = new Set<() => void>();

  private constructor(
    readonly peer: RTCPeerConnection,
    readonly channel: RTCDataChannel,
    /** From the offer to the channel open, in ms. */
    readonly openMs: number,
  ) {
    channel.onMessage.subscribe((data) => {
      const message = JSON.parse(String(data)) as { type: string; seq: number };
      if (message.type !== 'drive-ack') return;
      this.acks.push(message.seq);
      for (const waiter of this.#ackWaiters) waiter();
    });
    this.closed = new Promise((resolve) => {
      if (channel.readyState === 'closed') resolve();
      channel.stateChanged.subscribe((state) => {
        if (state === 'closed') resolve();
      });
    });
  }

  /**
   * Offers over `socket` (an open control socket) as a browser does — the offer without
   * candidates, then each one trickled as `rtc_candidate`, rewritten by `candidates` (default: as
   * an mDNS name, like Chromium; null: not sent) — and resolves once the channel is open; rejects
   * after `timeoutMs`.
   */
  static async open(
    socket: ControlWebSocket,
    { timeoutMs = 10_000, candidates = asMdnsName as (line: string) => string | null } = {},
  ): Promise<DriveChannelClient> {
    const { RTCPeerConnection } = await import('werift');
    const startedAt = performance.now();
    const peer = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false });
    const channel = peer.createDataChannel(DRIVE_CHANNEL.label, { ...DRIVE_CHANNEL.options });
    const gathered: string[] = [];
    let offered = false;
    const trickle = (line: string) => {
      const sent = candidates(line);
      if (sent) socket.send(JSON.stringify({ type: 'rtc_candidate', candidate: sent, sdpMid: '0' }));
    };
    peer.onIceCandidate.subscribe((candidate) => {
      const line = candidate?.toJSON().candidate;
      if (!line) return;
      if (offered) trickle(line);
      else gathered.push(line);
    });
    const onAnswer = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString()) as { type: string; sdp?: string };
      if (message.type !== 'rtc_answer' || !message.sdp) return;
      socket.off('message', onAnswer);
      peer.setRemoteDescription({ type: 'answer', sdp: message.sdp }).catch(() => undefined);
    };
    socket.on('message', onAnswer);
    const opened = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`drive channel not open within ${timeoutMs} ms`)),
        timeoutMs,
      );
      channel.stateChanged.subscribe((state) => {
        if (state !== 'open') return;
        clearTimeout(timer);
        resolve();
      });
    });
    await peer.setLocalDescription(await peer.createOffer());
    const sdp = (peer.localDescription?.sdp ?? '')
      .split('\r\n')
      .filter((line) => !line.startsWith('a=candidate') && line !== 'a=end-of-candidates')
      .join('\r\n');
    socket.send(JSON.stringify({ type: 'rtc_offer', sdp }));
    offered = true;
    for (const line of gathered) trickle(line);
    try {
      await opened;
    } catch (error) {
      // Given up: its UDP ports go now, not when the test process ends.
      await peer.close();
      throw error;
    } finally {
      socket.off('message', onAnswer);
    }
    return new DriveChannelClient(peer, channel, performance.now() - startedAt);
  }

  /** Sends a message on the channel as it is (a drive, or anything a test wants refused). */
  send(message: unknown): void {
    this.channel.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  drive(throttle: number, steer: number, seq: number): void {
    this.send({ type: 'drive', throttle, steer, seq });
  }

  /** Resolves when the server has acknowledged `seq`; rejects after `timeoutMs`. */
  acked(seq: number, timeoutMs = 5_000): Promise<void> {
    if (this.acks.includes(seq)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#ackWaiters.delete(check);
      };
      const check = () => {
        if (!this.acks.includes(seq)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`drive ${seq} not acknowledged within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#ackWaiters.add(check);
    });
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}
