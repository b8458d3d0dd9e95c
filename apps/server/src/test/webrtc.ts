/**
 * Real video for the tests, without a browser: a fake car camera sending H.264 RTP to a Janus
 * mountpoint over UDP, and a real WebRTC receiver (werift, a TypeScript WebRTC stack) that answers
 * Janus's offer and counts the RTP packets it really receives — so a test can tell when a viewer
 * stops getting video, not only what Janus says about it.
 */
import { createSocket } from 'node:dgram';
import { masterFromBase64, SrtpSender } from '@telerace/protocol/video-uplink';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';

/** Frames per second of the fake camera, like the simulated car's. */
const FAKE_FPS = 30;

/** Where a camera sends: a car's `video` target (its `srtp.key` encrypts; without one, plain RTP). */
export type CameraTarget = Record<string, unknown>;

/**
 * Sends one RTP packet per frame to the target: a single-NAL H.264 IDR slice (Janus only relays
 * the packets; nothing decodes them), encrypted and authenticated with the target's SRTP key as
 * the car's uplink does — or plain, as a stranger would without the key. `tap` sees each packet as
 * sent (a capture of the car's own packets). Stop it with the returned function.
 */
export function fakeCamera(
  target: CameraTarget,
  options: { ssrc?: number; tap?: (packet: Buffer) => void } = {},
): () => void {
  const udp = createSocket('udp4');
  const ssrc = options.ssrc ?? 0x7e1e_ace5;
  const key = (target.srtp as { key?: string } | undefined)?.key;
  const srtp = key === undefined ? null : new SrtpSender(masterFromBase64(key));
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
    const sent = srtp ? (srtp.protect(packet) as Buffer) : packet;
    options.tap?.(sent);
    udp.send(sent, Number(target.port), String(target.host));
  }, 1000 / FAKE_FPS);
  let stopped = false;
  return () => {
    clearInterval(timer);
    if (!stopped) udp.close();
    stopped = true;
  };
}

/** Sends `packets` to `host:port` again, as they were, at the camera's pace: a replay. */
export function replay(host: string, port: number, packets: readonly Buffer[]): Promise<void> {
  const udp = createSocket('udp4');
  return new Promise((resolve) => {
    let next = 0;
    const timer = setInterval(() => {
      const packet = packets[next++];
      if (!packet) {
        clearInterval(timer);
        udp.close();
        resolve();
        return;
      }
      udp.send(packet, port, host);
    }, 1000 / FAKE_FPS);
  });
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
