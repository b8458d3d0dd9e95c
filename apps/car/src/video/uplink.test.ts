import { createSocket } from 'node:dgram';
import {
  decodeParity,
  encodeFeedback,
  type Feedback,
  feedbackKey,
  masterFromBase64,
  readRtpHeader,
  SrtpReceiver,
} from '@telerace/protocol/video-uplink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultBitrate } from './pipeline.js';
import { VideoStreamer } from './streamer.js';
import { rtpArrives, TEST_SRTP, udpSink } from './testing.js';
import { type UplinkRepair, VideoUplink } from './uplink.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const START_CODE = Buffer.from([0, 0, 0, 1]);
/**
 * Whether a clear RTP H.264 payload starts a keyframe split over packets: a FU-A (NAL header 0x7c)
 * whose first fragment (start bit) is an IDR slice (type 5): 0x7c 0x85 — every second in this
 * stream. By chance, 1 encrypted packet in 65,536 starts so.
 */
function startsKeyframe(rtp: Buffer): boolean {
  const header = readRtpHeader(rtp);
  if (!header) return false;
  return rtp[header.payloadOffset] === 0x7c && rtp[header.payloadOffset + 1] === 0x85;
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
    // Read by the uplink (it decides at once): dropped, nothing sent.
    await vi.waitFor(() => expect(uplink.counters.received).toBe(1));
    expect(uplink.counters).toMatchObject({ sent: 0, dropped: 1 });
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
    // What the car reports it sends (no report from a server here: no loss figures).
    const kbps = defaultBitrate(160, 120, 30);
    expect(s.quality()).toEqual({ width: 160, height: 120, framerate: 30, bitrate: kbps, maxBitrate: kbps });
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

describe('VideoUplink loss repair', () => {
  const key = feedbackKey(masterFromBase64(TEST_SRTP.key));
  let counter = 0;

  /** An uplink streaming to a sink that can answer with signed feedback, as the server's ingest does. */
  async function streaming(repair: UplinkRepair = 'auto') {
    const sink = createSocket('udp4');
    const received: Buffer[] = [];
    let uplinkAddress: { address: string; port: number } | undefined;
    sink.on('message', (datagram, from) => {
      received.push(datagram);
      uplinkAddress = from;
    });
    await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', resolve));
    const keyframes: number[] = [];
    const uplink = new VideoUplink({
      log: () => {},
      repair,
      onKeyframeRequest: () => keyframes.push(Date.now()),
    });
    cleanups.push(
      () => uplink.close(),
      () => sink.close(),
    );
    uplink.setTarget({ host: '127.0.0.1', port: sink.address().port, key: TEST_SRTP.key });
    const local = await uplink.localPort();
    const answer = (feedback: Feedback, signedWith = key, number = ++counter) => {
      if (!uplinkAddress) throw new Error('nothing received yet');
      sink.send(encodeFeedback(signedWith, number, feedback), uplinkAddress.port, uplinkAddress.address);
    };
    const media = () => received.filter((d) => (d[0] as number) >> 6 === 2);
    const parity = () => received.filter((d) => decodeParity(d) !== null);
    return { uplink, local, received, media, parity, answer, keyframes };
  }

  const report = (lost: number): Extract<Feedback, { kind: 'report' }> => ({
    kind: 'report',
    received: 100,
    lost,
    recovered: 0,
    retransmitted: 0,
    unrepaired: 0,
    kbps: 800,
    queueMs: 0,
    rttMs: 0,
  });

  it('sends again what a signed NACK asks for, at most three times; ignores unsigned and replayed feedback', async () => {
    const { local, media, answer, uplink } = await streaming();
    const nextWindow = () => new Promise((r) => setTimeout(r, 260));
    for (let seq = 1; seq <= 5; seq++) await sendLocal(local, rtp(seq));
    await vi.waitFor(() => expect(media()).toHaveLength(5));
    await nextWindow();
    answer({ kind: 'nack', ssrc: 99, seqs: [2, 4, 77] });
    await vi.waitFor(() => expect(media()).toHaveLength(7));
    expect(media().slice(5)).toEqual([media()[1], media()[3]]);
    // Under another key, or an old one replayed: nothing.
    answer({ kind: 'nack', ssrc: 99, seqs: [1] }, feedbackKey(Buffer.alloc(30, 3)));
    answer({ kind: 'nack', ssrc: 99, seqs: [1] }, key, 1);
    for (let i = 0; i < 4; i++) {
      await nextWindow();
      answer({ kind: 'nack', ssrc: 99, seqs: [3] });
    }
    await vi.waitFor(() => expect(media()).toHaveLength(10));
    await new Promise((r) => setTimeout(r, 100));
    expect(media()).toHaveLength(10);
    expect(uplink.counters.resent).toBe(5);
  });

  it('resends no more than about 15 % of what it sends: a link that drops because it is full is not filled more', async () => {
    const { local, media, answer, uplink } = await streaming();
    for (let seq = 1; seq <= 40; seq++) await sendLocal(local, rtp(seq));
    await vi.waitFor(() => expect(media()).toHaveLength(40));
    await new Promise((r) => setTimeout(r, 260));
    // A fresh window: 10 more sent, then a NACK for 30 of them all.
    for (let seq = 41; seq <= 50; seq++) await sendLocal(local, rtp(seq));
    answer({ kind: 'nack', ssrc: 99, seqs: Array.from({ length: 30 }, (_, i) => i + 1) });
    await new Promise((r) => setTimeout(r, 150));
    // 2 + 15 % of the 10 sent in the window.
    expect(uplink.counters.resent).toBe(4);
  });

  it('sends parity packets only once the server reports losses, and calls for a keyframe when asked', async () => {
    const { local, parity, answer, keyframes, uplink } = await streaming();
    await sendLocal(local, rtp(1));
    await vi.waitFor(() => expect(uplink.counters.sent).toBe(1));
    expect(parity()).toEqual([]);
    answer(report(3));
    await vi.waitFor(() => expect(uplink.report?.lost).toBe(3));
    expect(uplink.sendingParity).toBe(true);
    const marked = rtp(2);
    marked[1] = 0x80 | 96;
    await sendLocal(local, marked);
    await vi.waitFor(() => expect(parity()).toHaveLength(1));
    answer({ kind: 'keyframe' });
    await vi.waitFor(() => expect(keyframes).toHaveLength(1));
  });

  it("the server's reports set the running encoder's bitrate: down at once when the uplink queues, back up when it clears", async () => {
    const sink = createSocket('udp4');
    let from: { address: string; port: number } | undefined;
    sink.on('message', (_datagram, rinfo) => {
      from = rinfo;
    });
    await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', resolve));
    const s = new VideoStreamer({ source: 'test', width: 160, height: 120, bitrate: 1000, log: () => {} });
    cleanups.push(
      () => s.stop(),
      () => sink.close(),
    );
    s.start({ host: '127.0.0.1', port: sink.address().port, codec: 'h264', srtp: TEST_SRTP });
    await vi.waitFor(() => expect(from && s.controllable).toBe(true), { timeout: 10_000 });
    const answer = (feedback: Feedback) => {
      if (from) sink.send(encodeFeedback(key, ++counter, feedback), from.port, from.address);
    };
    // A narrow uplink: 250 kbit/s arrive and the frames queue.
    answer({ ...report(0), kbps: 250, queueMs: 300 });
    await vi.waitFor(() => expect(s.quality()?.bitrate).toBeLessThanOrEqual(250));
    expect(s.quality()).toMatchObject({ maxBitrate: 1000 });
    // Clear again: climbs back after its hold.
    const lowered = s.quality()?.bitrate as number;
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 250));
      answer({ ...report(0), kbps: lowered, queueMs: 0 });
    }
    await vi.waitFor(() => expect(s.quality()?.bitrate).toBeGreaterThan(lowered));
    // A keyframe request reaches the encoder (the IDR itself: streamer.test.ts).
    answer({ kind: 'keyframe' });
    await vi.waitFor(() => expect(s.uplink.counters.keyframeRequests).toBe(1));
  });

  it("with repair off, neither parity nor resends nor keyframes — the server's reports still count", async () => {
    const { local, media, parity, answer, keyframes, uplink } = await streaming('off');
    await sendLocal(local, rtp(1));
    await vi.waitFor(() => expect(media()).toHaveLength(1));
    answer({ kind: 'nack', ssrc: 99, seqs: [1] });
    answer({ kind: 'keyframe' });
    // Last: once it counts, the uplink has read the two before it (one socket, in order).
    answer(report(5));
    await vi.waitFor(() => expect(uplink.report?.lost).toBe(5));
    // Sent after anything the feedback made the uplink send, so it arrives after it too.
    await sendLocal(local, rtp(2));
    await vi.waitFor(() => expect(media().at(-1)?.readUInt16BE(2)).toBe(2));
    expect(media()).toHaveLength(2);
    expect(parity()).toEqual([]);
    expect(keyframes).toEqual([]);
  });
});
