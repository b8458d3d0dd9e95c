import { createSocket } from 'node:dgram';
import { masterFromBase64, readRtpHeader, SrtpReceiver } from '@telerace/protocol/video-uplink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VideoStreamer } from './streamer.js';
import { rtpArrives, TEST_SRTP, udpSink } from './testing.js';
import { VideoUplink } from './uplink.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const START_CODE = Buffer.from([0, 0, 0, 1]);
/**
 * Whether a clear RTP H.264 payload starts a keyframe: an IDR slice (NAL header 0x65) alone, or the
 * first fragment of one (FU-A 0x7c, start bit and type 5: 0x85) — every second in this stream.
 */
function startsKeyframe(rtp: Buffer): boolean {
  const header = readRtpHeader(rtp);
  if (!header) return false;
  const at = (i: number) => rtp[header.payloadOffset + i];
  return at(0) === 0x65 || (at(0) === 0x7c && at(1) === 0x85);
}

async function sendLocal(port: number, packet: Buffer): Promise<void> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) =>
    socket.send(packet, port, '127.0.0.1', (e) => (e ? reject(e) : resolve())),
  );
  socket.close();
}

function rtp(seq: number): Buffer {
  const packet = Buffer.alloc(40, 0xab);
  packet[0] = 0x80;
  packet[1] = 96;
  packet.writeUInt16BE(seq, 2);
  packet.writeUInt32BE(99, 8);
  return packet;
}

describe('VideoUplink', () => {
  it('sends only RTP, only once it has a target, encrypted under the target’s key; a new key takes over at once', async () => {
    const sink = await udpSink();
    cleanups.push(sink.close);
    const uplink = new VideoUplink({ log: () => {} });
    cleanups.push(() => uplink.close());
    const port = await uplink.localPort();
    expect(await uplink.localPort()).toBe(port);

    await sendLocal(port, rtp(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.packets).toHaveLength(0);

    uplink.setTarget({ host: '127.0.0.1', port: sink.port, key: TEST_SRTP.key });
    await sendLocal(port, Buffer.from('not RTP'));
    await sendLocal(port, rtp(2));
    await vi.waitFor(() => expect(sink.packets).toHaveLength(1));
    const receiver = new SrtpReceiver(masterFromBase64(TEST_SRTP.key));
    const first = receiver.verify(sink.packets[0] as Buffer);
    expect(first.ok && receiver.decrypt(sink.packets[0] as Buffer, first)).toEqual(rtp(2));

    const other = Buffer.alloc(30, 9).toString('base64');
    uplink.setTarget({ host: '127.0.0.1', port: sink.port, key: other });
    await sendLocal(port, rtp(3));
    await vi.waitFor(() => expect(sink.packets).toHaveLength(2));
    expect(receiver.verify(sink.packets[1] as Buffer)).toEqual({ ok: false, reason: 'auth' });
    expect(new SrtpReceiver(masterFromBase64(other)).verify(sink.packets[1] as Buffer).ok).toBe(true);
    expect(uplink.counters).toMatchObject({ received: 4, sent: 2, dropped: 2 });

    expect(() => uplink.setTarget({ host: 'x ! fakesink', port: 1, key: other })).toThrow(/invalid host/);
    expect(() => uplink.setTarget({ host: '127.0.0.1', port: 1, key: 'short' })).toThrow(/30 bytes/);
  });

  it('puts the camera on the wire with no H.264 in the clear: no start code, no keyframe header — all there once decrypted', async () => {
    const sink = await udpSink();
    cleanups.push(sink.close);
    const s = new VideoStreamer({ source: 'test', width: 160, height: 120, log: () => {} });
    cleanups.push(() => s.stop());
    s.start({ host: '127.0.0.1', port: sink.port, codec: 'h264', srtp: TEST_SRTP });
    await rtpArrives(sink, { moreThan: 60 });
    const wire = sink.rtp();
    expect(wire.some((packet) => packet.includes(START_CODE))).toBe(false);
    expect(wire.filter(startsKeyframe)).toEqual([]);
    const receiver = new SrtpReceiver(masterFromBase64(TEST_SRTP.key));
    const clear = wire.map((packet) => {
      const result = receiver.verify(packet);
      if (!result.ok) throw new Error(`packet refused: ${result.reason}`);
      return receiver.decrypt(packet, result);
    });
    // Decrypted, the same packets start keyframes.
    expect(clear.filter(startsKeyframe).length).toBeGreaterThan(0);
  });
});
