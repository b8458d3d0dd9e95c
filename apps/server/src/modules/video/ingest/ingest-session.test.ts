import { randomBytes } from 'node:crypto';
import {
  decodeFeedback,
  type Feedback,
  feedbackKey,
  ParityEncoder,
  QUEUE_HIGH_MS,
  SrtpSender,
} from '@telerace/protocol/video-uplink';
import { describe, expect, it } from 'vitest';
import {
  ALERT_AFTER_MS,
  GIVE_UP_MS,
  IngestSession,
  NACK_DELAY_MS,
  NACK_TRIES,
  REPORT_EVERY_MS,
} from './ingest-session.js';

const CAR = { address: '198.51.100.7', port: 40_000 };

function rtp(seq: number, options: { marker?: boolean; ssrc?: number; timestamp?: number } = {}): Buffer {
  const packet = Buffer.alloc(200, seq & 0xff);
  packet[0] = 0x80;
  packet[1] = (options.marker ? 0x80 : 0) | 96;
  packet.writeUInt16BE(seq & 0xffff, 2);
  packet.writeUInt32BE(options.timestamp ?? seq * 3000, 4);
  packet.writeUInt32BE(options.ssrc ?? 1234, 8);
  return packet;
}

/** A session, the car's sender under the same key, and what the session sent each way. */
function setup() {
  const master = randomBytes(30);
  const forwarded: Buffer[] = [];
  const feedback: Feedback[] = [];
  const key = feedbackKey(master);
  const session = new IngestSession(
    {
      master,
      forward: (packet) => forwarded.push(packet),
      toCar: (datagram, address, port) => {
        expect({ address, port }).toEqual(session.car);
        const decoded = decodeFeedback(key, datagram);
        if (!decoded) throw new Error('unsigned feedback');
        feedback.push(decoded.feedback);
      },
    },
    0,
  );
  const sender = new SrtpSender(master);
  const parity = new ParityEncoder();
  /** The car's packet `seq` (SRTP) and the parity packets that follow it. */
  const car = (seq: number, marker = false) => {
    const packet = sender.protect(rtp(seq, { marker })) as Buffer;
    return { packet, parity: parity.add(packet) };
  };
  const fromCar = (datagram: Buffer, now: number) => session.receive(datagram, CAR.address, CAR.port, now);
  const nacks = () => feedback.filter((f) => f.kind === 'nack');
  return { master, session, forwarded, feedback, nacks, car, fromCar };
}

/** A session whose reports to the car are kept, and the car's sender. */
function reporting() {
  const master = randomBytes(30);
  const reports: Feedback[] = [];
  const key = feedbackKey(master);
  const session = new IngestSession(
    {
      master,
      forward: () => {},
      toCar: (datagram) => {
        const decoded = decodeFeedback(key, datagram);
        if (decoded?.feedback.kind === 'report') reports.push(decoded.feedback);
      },
    },
    0,
  );
  return { session, sender: new SrtpSender(master), reports };
}

describe('IngestSession', () => {
  it("forwards what authenticates; refuses a stranger's RTP, another key's, a replay, and parity from another address", () => {
    const { session, forwarded, car, fromCar, master } = setup();
    const first = car(1, true);
    fromCar(first.packet, 0);
    expect(forwarded).toEqual([first.packet]);
    expect(session.car).toEqual(CAR);

    session.receive(rtp(2), '203.0.113.9', 5004, 1);
    session.receive(new SrtpSender(randomBytes(30)).protect(rtp(2)) as Buffer, '203.0.113.9', 5004, 1);
    session.receive(first.packet, '203.0.113.9', 5004, 1);
    session.receive(first.parity[0] as Buffer, '203.0.113.9', 5004, 1);
    session.receive(Buffer.from('hello'), CAR.address, CAR.port, 1);
    expect(forwarded).toHaveLength(1);
    expect(session.counters.refused).toBe(5);
    // The car's address stays the last one an authenticated packet came from.
    expect(session.car).toEqual(CAR);
    expect(new SrtpSender(master)).toBeDefined();
  });

  it('follows the car to a new address (4G after Wi-Fi) with its next authenticated packet', () => {
    const { session, car, fromCar } = setup();
    fromCar(car(1).packet, 0);
    session.receive(car(2).packet, '192.0.2.33', 51_000, 1);
    expect(session.car).toEqual({ address: '192.0.2.33', port: 51_000 });
  });

  it('rebuilds one lost packet of a frame from its parity at once: no NACK, no keyframe', () => {
    const { session, forwarded, car, fromCar, nacks } = setup();
    const frame = [car(1), car(2), car(3, true)];
    fromCar((frame[0] as { packet: Buffer }).packet, 0);
    // Packet 2 is lost.
    fromCar((frame[2] as { packet: Buffer }).packet, 1);
    for (const parity of (frame[2] as { parity: Buffer[] }).parity) fromCar(parity, 1);
    expect(forwarded.map((p) => p.readUInt16BE(2))).toEqual([1, 3, 2]);
    expect(forwarded[2]).toEqual((frame[1] as { packet: Buffer }).packet);
    for (let t = 2; t < 500; t += 5) session.tick(t);
    expect(nacks()).toEqual([]);
    expect(session.counters).toMatchObject({
      lost: 1,
      recovered: 1,
      retransmitted: 0,
      unrepaired: 0,
      keyframesRequested: 0,
    });
  });

  it('rebuilds the last packet of a frame, lost before the ingest knew it was missing', () => {
    const { session, forwarded, car, fromCar } = setup();
    const one = car(1);
    const last = car(2, true);
    fromCar(one.packet, 0);
    for (const parity of last.parity) fromCar(parity, 1);
    expect(forwarded).toEqual([one.packet, last.packet]);
    expect(session.counters).toMatchObject({ lost: 1, recovered: 1 });
  });

  it('asks again for what parity cannot rebuild after NACK_DELAY_MS, retries, then gives up and asks for a keyframe', () => {
    const { session, forwarded, car, fromCar, nacks, feedback } = setup();
    const frame = [car(1), car(2), car(3), car(4, true)];
    fromCar((frame[0] as { packet: Buffer }).packet, 0);
    fromCar((frame[3] as { packet: Buffer }).packet, 0);
    // 2 and 3 lost: parity cannot rebuild two.
    session.tick(NACK_DELAY_MS - 1);
    expect(nacks()).toEqual([]);
    session.tick(NACK_DELAY_MS);
    expect(nacks()).toEqual([{ kind: 'nack', ssrc: 1234, seqs: [2, 3] }]);
    // 2 comes again 80 ms later; 3 never does.
    fromCar((frame[1] as { packet: Buffer }).packet, NACK_DELAY_MS + 80);
    expect(forwarded.at(-1)).toEqual((frame[1] as { packet: Buffer }).packet);
    for (let t = NACK_DELAY_MS + 80; t <= GIVE_UP_MS; t += 5) session.tick(t);
    expect(nacks().flatMap((n) => (n.kind === 'nack' ? n.seqs : []))).toEqual([
      2,
      3,
      ...Array(NACK_TRIES - 1).fill(3),
    ]);
    expect(feedback.filter((f) => f.kind === 'keyframe')).toHaveLength(1);
    expect(session.counters).toMatchObject({
      lost: 2,
      retransmitted: 1,
      unrepaired: 1,
      keyframesRequested: 1,
    });
    // The copy of 2 that comes late again is a replay: not forwarded twice.
    const count = forwarded.length;
    fromCar((frame[1] as { packet: Buffer }).packet, GIVE_UP_MS + 1);
    expect(forwarded).toHaveLength(count);
  });

  it('takes a jump of hundreds of packets as an outage: a keyframe, not a flood of NACKs', () => {
    const { session, car, fromCar, nacks, feedback } = setup();
    fromCar(car(1).packet, 0);
    fromCar(car(1_000).packet, 10);
    for (let t = 10; t < 100; t += 5) session.tick(t);
    expect(nacks()).toEqual([]);
    expect(feedback.filter((f) => f.kind === 'keyframe')).toHaveLength(1);
  });

  it("reports the uplink's queue: frames arriving later than their capture than they did lately, not a steady offset", () => {
    const { session, sender, reports } = reporting();
    // 30 frames a second for 3 s, arriving 5 s after their (camera clock's) capture: no queue.
    let seq = 0;
    const frame = (capturedMs: number, arrivesMs: number) => {
      const packet = sender.protect(rtp(++seq, { marker: true, timestamp: capturedMs * 90 })) as Buffer;
      session.receive(packet, CAR.address, CAR.port, arrivesMs);
      session.tick(arrivesMs);
    };
    let t = 0;
    for (; t < 3_000; t += 33) frame(t, t + 5_000);
    const steady = reports.at(-1);
    expect(steady?.kind === 'report' && steady.queueMs).toBeLessThan(1);
    // Then a narrow uplink: each frame 10 ms later than the one before, for a second.
    for (let i = 1; i <= 30; i++, t += 33) frame(t, t + 5_000 + 10 * i);
    const queued = reports.at(-1);
    expect(queued?.kind === 'report' && queued.queueMs).toBeGreaterThan(150);
  });

  it('reports at once when the queue crosses QUEUE_HIGH_MS, not at the next quarter second', () => {
    const { session, sender, reports } = reporting();
    const reportedAt: number[] = [];
    let seq = 0;
    let t = 0;
    const frame = (arrivesLateMs: number) => {
      const packet = sender.protect(rtp(++seq, { marker: true, timestamp: t * 90 })) as Buffer;
      session.receive(packet, CAR.address, CAR.port, t + arrivesLateMs);
      const before = reports.length;
      session.tick(t + arrivesLateMs);
      if (reports.length > before) reportedAt.push(t + arrivesLateMs);
    };
    for (; t < 2_000; t += 33) frame(0);
    // A narrow uplink: each frame 15 ms later than the one before.
    const narrowFrom = t;
    let crossedAt: number | null = null;
    for (let i = 1; t < narrowFrom + 1_000; i++, t += 33) {
      frame(15 * i);
      const last = reports.at(-1);
      if (crossedAt === null && last?.kind === 'report' && last.queueMs > QUEUE_HIGH_MS)
        crossedAt = reportedAt.at(-1) ?? null;
    }
    expect(crossedAt).not.toBeNull();
    // The report that says it came within a frame or two of ALERT_AFTER_MS of the last, not 250 ms.
    const before = reportedAt.filter((at) => at < (crossedAt as number)).at(-1) as number;
    expect((crossedAt as number) - before).toBeLessThan(REPORT_EVERY_MS);
    expect((crossedAt as number) - before).toBeGreaterThanOrEqual(ALERT_AFTER_MS);
  });

  it('does not count a repaired packet, late by its round trip, as queueing', () => {
    const { session, sender, reports } = reporting();
    // 30 frames a second of two packets each for 3 s; every 8th frame's first packet is lost on
    // the way and its resend arrives 100 ms later (the uplink's round trip and the NACK's delay).
    const late: { packet: Buffer; at: number }[] = [];
    let seq = 0;
    for (let t = 0, frame = 0; t < 3_000; t += 33, frame++) {
      const first = sender.protect(rtp(++seq, { timestamp: t * 90 })) as Buffer;
      const last = sender.protect(rtp(++seq, { marker: true, timestamp: t * 90 })) as Buffer;
      if (frame % 8 === 4) late.push({ packet: first, at: t + 100 });
      else session.receive(first, CAR.address, CAR.port, t);
      session.receive(last, CAR.address, CAR.port, t);
      for (const resend of late.filter((entry) => entry.at <= t)) {
        session.receive(resend.packet, CAR.address, CAR.port, resend.at);
        late.splice(late.indexOf(resend), 1);
      }
      session.tick(t);
    }
    const queues = reports.map((report) => (report.kind === 'report' ? report.queueMs : 0));
    expect(queues.length).toBeGreaterThan(8);
    expect(Math.max(...queues)).toBeLessThan(5);
  });

  it('reports what arrived every REPORT_EVERY_MS, signed', () => {
    const { session, car, fromCar, feedback } = setup();
    for (let seq = 1; seq <= 100; seq++) if (seq % 10 !== 0) fromCar(car(seq, true).packet, seq);
    session.tick(REPORT_EVERY_MS);
    const report = feedback.find((f) => f.kind === 'report');
    expect(report).toMatchObject({ kind: 'report', received: 90, lost: 9 });
    expect(report?.kind === 'report' && report.kbps).toBeGreaterThan(0);
  });
});
