import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { masterFromBase64, readRtpHeader, SrtpReceiver, SrtpSender, sessionKeys } from './srtp.js';

const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');

function rtp(
  seq: number,
  options: { ssrc?: number; payload?: Buffer; marker?: boolean; csrc?: number } = {},
) {
  const csrc = options.csrc ?? 0;
  const header = Buffer.alloc(12 + 4 * csrc);
  header[0] = 0x80 | csrc;
  header[1] = (options.marker ? 0x80 : 0) | 96;
  header.writeUInt16BE(seq & 0xffff, 2);
  header.writeUInt32BE(1234 * seq, 4);
  header.writeUInt32BE(options.ssrc ?? 0xdeadbeef, 8);
  return Buffer.concat([
    header,
    options.payload ?? Buffer.from(`frame ${seq} payload, long enough to span blocks`),
  ]);
}

describe('SRTP key derivation (RFC 3711 appendix B.3)', () => {
  it('derives the session keys of the RFC test vector', () => {
    const keys = sessionKeys(
      Buffer.concat([hex('E1F97A0D3E018BE0D64FA32C06DE4139'), hex('0EC675AD498AFEEBB6960B3AABE6')]),
    );
    expect(keys.encryption.toString('hex')).toBe('c61e7a93744f39ee10734afe3ff7a087');
    expect(keys.salt.toString('hex')).toBe('30cbbc08863d8c85d49db34a9ae1');
    expect(keys.auth.toString('hex')).toBe('cebe321f6ff7716b6fd4ab49af256a156d38baa4');
  });
});

describe('SRTP protect', () => {
  const master = randomBytes(30);

  it('encrypts the payload with AES-CM and the RFC 3711 counter, and tags header, payload and ROC', () => {
    const packet = rtp(7, { payload: Buffer.from('0000000167'.repeat(20), 'hex') });
    const out = new SrtpSender(master).protect(packet) as Buffer;
    expect(out.length).toBe(packet.length + 10);
    // The header is unchanged; the payload is not.
    expect(out.subarray(0, 12)).toEqual(packet.subarray(0, 12));
    expect(out.subarray(12, packet.length).equals(packet.subarray(12))).toBe(false);
    // Recomputed independently: IV = salt ⊕ (SSRC·2^64) ⊕ (index·2^16).
    const keys = sessionKeys(master);
    const iv = Buffer.alloc(16);
    keys.salt.copy(iv);
    const ssrcAndIndex = Buffer.alloc(16);
    ssrcAndIndex.writeUInt32BE(0xdeadbeef, 4);
    ssrcAndIndex.writeUInt16BE(7, 12);
    for (let i = 0; i < 16; i++) iv[i] = (iv[i] as number) ^ (ssrcAndIndex[i] as number);
    const plain = createCipheriv('aes-128-ctr', keys.encryption, iv).update(out.subarray(12, packet.length));
    expect(plain).toEqual(packet.subarray(12));
    const expectedTag = createHmac('sha1', keys.auth)
      .update(out.subarray(0, packet.length))
      .update(Buffer.alloc(4))
      .digest()
      .subarray(0, 10);
    expect(out.subarray(packet.length)).toEqual(expectedTag);
  });

  it('leaves no H.264 start code or NAL header in the clear', () => {
    const payload = Buffer.from('00000001674200', 'hex');
    const out = new SrtpSender(master).protect(rtp(1, { payload })) as Buffer;
    expect(out.includes(payload)).toBe(false);
  });

  it('refuses what is not RTP', () => {
    expect(new SrtpSender(master).protect(Buffer.from('hello, not RTP'))).toBeNull();
  });
});

describe('SrtpReceiver', () => {
  const master = randomBytes(30);

  it('accepts and decrypts what the sender protected, CSRCs included', () => {
    const sender = new SrtpSender(master);
    const receiver = new SrtpReceiver(master);
    for (const packet of [rtp(1), rtp(2, { csrc: 2 }), rtp(3, { marker: true })]) {
      const protectedPacket = sender.protect(packet) as Buffer;
      const result = receiver.verify(protectedPacket);
      expect(result.ok).toBe(true);
      if (result.ok) expect(receiver.decrypt(protectedPacket, result)).toEqual(packet);
    }
  });

  it('refuses a packet under another key, a plain RTP packet and a packet changed on the way', () => {
    const receiver = new SrtpReceiver(master);
    expect(receiver.verify(new SrtpSender(randomBytes(30)).protect(rtp(1)) as Buffer)).toEqual({
      ok: false,
      reason: 'auth',
    });
    expect(receiver.verify(rtp(2))).toEqual({ ok: false, reason: 'auth' });
    const tampered = new SrtpSender(master).protect(rtp(3)) as Buffer;
    tampered[20] = (tampered[20] as number) ^ 1;
    expect(receiver.verify(tampered)).toEqual({ ok: false, reason: 'auth' });
    expect(receiver.verify(Buffer.from('short'))).toEqual({ ok: false, reason: 'not-rtp' });
  });

  it('refuses a replay, even one reordered into the window, and anything older than the window', () => {
    const sender = new SrtpSender(master);
    const receiver = new SrtpReceiver(master);
    const packets = Array.from({ length: 1100 }, (_, i) => sender.protect(rtp(100 + i)) as Buffer);
    // Packet 5 is late: still accepted once, then refused.
    for (const [i, packet] of packets.slice(0, 20).entries())
      if (i !== 5) expect(receiver.verify(packet).ok).toBe(true);
    expect(receiver.verify(packets[5] as Buffer).ok).toBe(true);
    expect(receiver.verify(packets[5] as Buffer)).toEqual({ ok: false, reason: 'replay' });
    expect(receiver.verify(packets[19] as Buffer)).toEqual({ ok: false, reason: 'replay' });
    for (const packet of packets.slice(20)) expect(receiver.verify(packet).ok).toBe(true);
    // 1,080 packets later, a never-seen packet from the start is outside the window.
    const fresh = new SrtpReceiver(master);
    for (const packet of packets.slice(50)) fresh.verify(packet);
    expect(fresh.verify(packets[10] as Buffer)).toEqual({ ok: false, reason: 'replay' });
  });

  it('follows the sequence number across its wrap (rollover counter)', () => {
    const sender = new SrtpSender(master);
    const receiver = new SrtpReceiver(master);
    let accepted = 0;
    for (let i = 0; i < 70_000; i++) {
      const packet = sender.protect(rtp(65_000 + i, { payload: Buffer.from([i & 0xff]) })) as Buffer;
      const result = receiver.verify(packet);
      if (result.ok && receiver.decrypt(packet, result)[12] === (i & 0xff)) accepted++;
    }
    expect(accepted).toBe(70_000);
  });

  it('keeps streams apart by SSRC (a restarted encoder)', () => {
    const sender = new SrtpSender(master);
    const receiver = new SrtpReceiver(master);
    expect(receiver.verify(sender.protect(rtp(500, { ssrc: 1 })) as Buffer).ok).toBe(true);
    expect(receiver.verify(sender.protect(rtp(3, { ssrc: 2 })) as Buffer).ok).toBe(true);
    expect(receiver.verify(sender.protect(rtp(501, { ssrc: 1 })) as Buffer).ok).toBe(true);
  });
});

describe('masterFromBase64 and readRtpHeader', () => {
  it('takes exactly 30 bytes of canonical base64', () => {
    const master = randomBytes(30);
    expect(masterFromBase64(master.toString('base64'))).toEqual(master);
    expect(() => masterFromBase64(randomBytes(16).toString('base64'))).toThrow(RangeError);
    expect(() => masterFromBase64('not base64 at all!!')).toThrow(RangeError);
  });

  it('finds the payload after CSRCs and a header extension', () => {
    const packet = Buffer.concat([
      Buffer.from([0x91, 0xe0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]),
      Buffer.alloc(4),
      Buffer.from([0xbe, 0xde, 0, 1]),
      Buffer.alloc(4),
      Buffer.from('x'),
    ]);
    expect(readRtpHeader(packet)).toMatchObject({
      marker: true,
      payloadType: 96,
      seq: 1,
      timestamp: 2,
      ssrc: 3,
      payloadOffset: 24,
    });
    expect(readRtpHeader(Buffer.from([0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });
});
