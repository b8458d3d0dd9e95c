/**
 * Real video for the tests, without a browser: a fake car camera sending H.264 RTP to a Janus
 * mountpoint over UDP, and a real WebRTC receiver (werift, a TypeScript WebRTC stack) that answers
 * Janus's offer and counts the RTP packets it really receives — so a test can tell when a viewer
 * stops getting video, not only what Janus says about it.
 */
import { createSocket } from 'node:dgram';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';

/** Frames per second of the fake camera, like the simulated car's. */
const FAKE_FPS = 30;

/**
 * Sends one RTP packet per frame to `host:port`: a single-NAL H.264 IDR slice (Janus only relays
 * the packets; nothing decodes them). Stop it with the returned function.
 */
export function fakeCamera(host: string, port: number): () => void {
  const udp = createSocket('udp4');
  const ssrc = 0x7e1e_ace5;
  let sequence = 0;
  let timestamp = 0;
  const timer = setInterval(() => {
    const packet = Buffer.alloc(12 + 16);
    packet[0] = 0x80; // RTP version 2
    packet[1] = 0x80 | 96; // marker (last packet of the frame), payload type 96
    packet.writeUInt16BE(sequence++ & 0xffff, 2);
    packet.writeUInt32BE(timestamp >>> 0, 4);
    packet.writeUInt32BE(ssrc, 8);
    packet[12] = 0x65; // NAL type 5: IDR slice
    timestamp += 90_000 / FAKE_FPS;
    udp.send(packet, port, host);
  }, 1000 / FAKE_FPS);
  return () => {
    clearInterval(timer);
    udp.close();
  };
}

/** A receive-only WebRTC peer for one Janus streaming offer, counting what it receives. */
export class WebRtcViewer {
  readonly #pc = new RTCPeerConnection({
    codecs: {
      video: [
        new RTCRtpCodecParameters({
          mimeType: 'video/H264',
          clockRate: 90_000,
          payloadType: 96,
          // werift takes an H.264 offer only at the very profile and level it was given: the mountpoint's.
          parameters: 'profile-level-id=42e028;packetization-mode=1',
          rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }],
        }),
      ],
    },
  });
  /** RTP packets received so far. */
  packets = 0;
  /** When the last one arrived (Date.now()), or 0. */
  lastPacketAt = 0;

  constructor() {
    this.#pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe(() => {
        this.packets++;
        this.lastPacketAt = Date.now();
      });
    });
  }

  /** The answer to Janus's offer, with this peer's ICE candidates in it (no trickle needed). */
  async answer(offer: { type: string; sdp: string }): Promise<{ type: 'answer'; sdp: string }> {
    await this.#pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
    await this.#pc.setLocalDescription(await this.#pc.createAnswer());
    if (this.#pc.iceGatheringState !== 'complete') {
      await new Promise<void>((resolve) => {
        const { unSubscribe } = this.#pc.iceGatheringStateChange.subscribe((state) => {
          if (state !== 'complete') return;
          unSubscribe();
          resolve();
        });
      });
    }
    const sdp = this.#pc.localDescription?.sdp;
    if (!sdp) throw new Error('no local description');
    return { type: 'answer', sdp };
  }

  close(): Promise<void> {
    return this.#pc.close();
  }
}
