import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeFeedback,
  decodeParity,
  encodeFeedback,
  FEC_GROUP_MAX,
  type Feedback,
  feedbackKey,
  ParityEncoder,
  recoverFromParity,
} from './repair.js';

function rtp(seq: number, length: number, marker = false, ssrc = 42): Buffer {
  const packet = randomBytes(length);
  packet[0] = 0x80;
  packet[1] = (marker ? 0x80 : 0) | 96;
  packet.writeUInt16BE(seq & 0xffff, 2);
  packet.writeUInt32BE(ssrc, 8);
  return packet;
}

/** The parity packets an encoder sends for these packets, in order. */
function encode(packets: Buffer[]): Buffer[] {
  const encoder = new ParityEncoder();
  return [...packets.flatMap((packet) => encoder.add(packet)), ...encoder.flush()];
}

describe('ParityEncoder and recoverFromParity', () => {
  it('closes a group at the end of a frame and at FEC_GROUP_MAX packets', () => {
    const frame = [rtp(1, 300), rtp(2, 1200), rtp(3, 90, true)];
    const big = Array.from({ length: 11 }, (_, i) => rtp(4 + i, 1000, i === 10));
    const parities = encode([...frame, ...big]).map((p) => decodeParity(p));
    expect(parities.map((p) => [p?.baseSeq, p?.count])).toEqual([
      [1, 3],
      [4, FEC_GROUP_MAX],
      [12, 3],
    ]);
  });

  it('rebuilds any one lost packet of a group, whatever the lengths, across the sequence wrap', () => {
    const packets = [rtp(65_534, 1400), rtp(65_535, 17), rtp(0, 800), rtp(1, 1399, true)];
    const parity = decodeParity(encode(packets)[0] as Buffer);
    if (!parity) throw new Error('no parity');
    for (const lost of packets) {
      const have = (seq: number) => packets.find((p) => p.readUInt16BE(2) === seq && p !== lost);
      expect(recoverFromParity(parity, have)).toEqual(lost);
    }
  });

  it('rebuilds nothing when none or two are missing', () => {
    const packets = [rtp(10, 500), rtp(11, 600), rtp(12, 700, true)];
    const parity = decodeParity(encode(packets)[0] as Buffer);
    if (!parity) throw new Error('no parity');
    expect(recoverFromParity(parity, (seq) => packets.find((p) => p.readUInt16BE(2) === seq))).toBeNull();
    expect(recoverFromParity(parity, (seq) => (seq === 10 ? packets[0] : undefined))).toBeNull();
  });

  it('starts a new group when the SSRC changes or a sequence number is skipped', () => {
    const parities = encode([rtp(1, 100), rtp(2, 100, false, 7), rtp(9, 100, false, 7)]).map((p) =>
      decodeParity(p),
    );
    expect(parities.map((p) => [p?.ssrc, p?.baseSeq, p?.count])).toEqual([
      [42, 1, 1],
      [7, 2, 1],
      [7, 9, 1],
    ]);
  });

  it('refuses what is not a parity packet', () => {
    expect(decodeParity(rtp(1, 100))).toBeNull();
    expect(decodeParity(Buffer.from([1, 0, 0]))).toBeNull();
    const bad = encode([rtp(1, 100, true)])[0] as Buffer;
    bad[7] = 0;
    expect(decodeParity(bad)).toBeNull();
  });
});

describe('feedback', () => {
  const key = feedbackKey(randomBytes(30));
  const all: Feedback[] = [
    { kind: 'nack', ssrc: 0xdeadbeef, seqs: [1, 65_535, 0] },
    { kind: 'keyframe' },
    {
      kind: 'report',
      received: 300,
      lost: 6,
      recovered: 5,
      retransmitted: 1,
      unrepaired: 0,
      kbps: 812,
      queueMs: 12,
      rttMs: 81,
    },
  ];

  it('round-trips each kind, signed and numbered', () => {
    for (const [i, feedback] of all.entries())
      expect(decodeFeedback(key, encodeFeedback(key, i + 1, feedback))).toEqual({ counter: i + 1, feedback });
  });

  it('refuses feedback under another key, changed on the way, or cut short', () => {
    const datagram = encodeFeedback(key, 1, all[0] as Feedback);
    expect(decodeFeedback(feedbackKey(randomBytes(30)), datagram)).toBeNull();
    const changed = Buffer.from(datagram);
    changed[12] = (changed[12] as number) ^ 1;
    expect(decodeFeedback(key, changed)).toBeNull();
    expect(decodeFeedback(key, datagram.subarray(0, 8))).toBeNull();
  });

  it('caps a NACK at 64 sequence numbers', () => {
    const seqs = Array.from({ length: 100 }, (_, i) => i);
    const decoded = decodeFeedback(key, encodeFeedback(key, 1, { kind: 'nack', ssrc: 1, seqs }));
    expect(decoded?.feedback).toEqual({ kind: 'nack', ssrc: 1, seqs: seqs.slice(0, 64) });
  });
});
