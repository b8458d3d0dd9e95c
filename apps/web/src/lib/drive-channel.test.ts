import { Backoff, DRIVE_CHANNEL, type RtcSignal } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakePeer, fakePeerFactory } from '../test/fake-peer';
import { DriveChannel, type PeerFactory } from './drive-channel';

const ICE = [{ urls: ['stun:stun.race.test:3478'] }];
let signals: RtcSignal[];
let socketOpen: boolean;
let changes: number;

function driveChannel(createPeer: PeerFactory | null = fakePeerFactory) {
  return new DriveChannel({
    signal: (message) => {
      if (socketOpen) signals.push(message);
      return socketOpen;
    },
    onChange: () => {
      changes += 1;
    },
    iceServers: async () => ICE,
    createPeer,
    backoff: new Backoff({ initialMs: DRIVE_CHANNEL.retryInitialMs, maxMs: DRIVE_CHANNEL.retryMaxMs }),
  });
}

/** Lets the offer's promises (ICE servers, createOffer, setLocalDescription) run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

const drive = (seq: number) => ({ throttle: 0.5, steer: 0, seq });
const ack = (seq: number) => ({ type: 'drive-ack', seq });

/** A channel negotiated and open, not yet acknowledged. */
async function opened() {
  const channel = driveChannel();
  channel.start();
  await settle();
  FakePeer.last.channel.remoteOpen();
  return { channel, fake: FakePeer.last.channel };
}

beforeEach(() => {
  FakePeer.reset();
  signals = [];
  socketOpen = true;
  changes = 0;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('DriveChannel', () => {
  it('offers an unordered, never retransmitted channel over the socket, with the video’s ICE servers', async () => {
    const channel = driveChannel();
    channel.start();
    await settle();
    const peer = FakePeer.last;
    expect(peer.configuration).toEqual({ iceServers: ICE });
    expect(peer.channels).toHaveLength(1);
    expect(peer.channel.label).toBe('drive');
    expect(peer.channel.options).toEqual({ ordered: false, maxRetransmits: 0 });
    expect(signals).toEqual([{ type: 'rtc_offer', sdp: 'v=0 offer 1' }]);

    peer.gather('candidate:1 1 udp 2113937151 a1b2.local 50000 typ host');
    expect(signals.at(-1)).toEqual({
      type: 'rtc_candidate',
      candidate: 'candidate:1 1 udp 2113937151 a1b2.local 50000 typ host',
      sdpMid: '0',
      sdpMLineIndex: 0,
    });
    channel.answer('v=0 answer');
    await settle();
    expect(peer.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0 answer' });
  });

  it('sends candidates found before the offer went out after it', async () => {
    const channel = driveChannel((configuration) => {
      const peer = new FakePeer(configuration);
      const setLocal = peer.setLocalDescription.bind(peer);
      peer.setLocalDescription = async (description) => {
        await setLocal(description);
        peer.gather('candidate:2 1 udp 1 198.51.100.7 40000 typ srflx');
      };
      return peer;
    });
    channel.start();
    await settle();
    expect(signals.map((signal) => signal.type)).toEqual(['rtc_offer', 'rtc_candidate']);
  });

  it('carries drives once the server acknowledges one, and stops when acknowledgements stop for ackTimeoutMs', async () => {
    const { channel, fake } = await opened();
    expect(channel.isOpen).toBe(true);
    expect(channel.isWorking).toBe(false);
    // Open but unproven: the drive goes out as a probe, and the caller sends it on the socket too.
    expect(channel.send(drive(1))).toBe(false);
    expect(fake.messages).toEqual([{ type: 'drive', throttle: 0.5, steer: 0, seq: 1 }]);
    const before = changes;
    fake.remoteSend(ack(1));
    expect(channel.isWorking).toBe(true);
    expect(changes).toBe(before + 1);
    expect(channel.send(drive(2))).toBe(true);

    vi.advanceTimersByTime(DRIVE_CHANNEL.ackTimeoutMs - 1);
    expect(channel.isWorking).toBe(true);
    fake.remoteSend(ack(2));
    vi.advanceTimersByTime(DRIVE_CHANNEL.ackTimeoutMs - 1);
    expect(channel.isWorking).toBe(true);
    vi.advanceTimersByTime(1);
    expect(channel.isWorking).toBe(false);
    expect(changes).toBe(before + 2);
    // Still open: drives keep probing it, and an acknowledgement brings it back.
    expect(channel.send(drive(3))).toBe(false);
    fake.remoteSend(ack(3));
    expect(channel.isWorking).toBe(true);
  });

  it('probes a channel that does not work at most once per repeatMs', async () => {
    const { channel, fake } = await opened();
    expect(channel.send(drive(1))).toBe(false);
    vi.advanceTimersByTime(DRIVE_CHANNEL.repeatMs - 1);
    expect(channel.send(drive(2))).toBe(false);
    expect(fake.messages.map((m) => m.seq)).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(channel.send(drive(3))).toBe(false);
    expect(fake.messages.map((m) => m.seq)).toEqual([1, 3]);
    // Working, every drive goes.
    fake.remoteSend(ack(3));
    expect(channel.send(drive(4))).toBe(true);
    expect(channel.send(drive(5))).toBe(true);
    expect(fake.messages.map((m) => m.seq)).toEqual([1, 3, 4, 5]);
  });

  it('takes nothing but acknowledgements as one', async () => {
    const { channel, fake } = await opened();
    fake.remoteSend('not json');
    fake.remoteSend({ type: 'drive-ack' });
    fake.remoteSend({ type: 'telemetry', seq: 1 });
    expect(channel.isWorking).toBe(false);
  });

  it('offers again after a channel closes: 1 s, then doubling; an open channel starts the delays over', async () => {
    const { channel, fake } = await opened();
    fake.remoteSend(ack(1));
    const before = changes;
    fake.remoteClose();
    expect(channel.isOpen).toBe(false);
    expect(channel.isWorking).toBe(false);
    expect(channel.send(drive(2))).toBe(false);
    expect(changes).toBe(before + 1);
    expect(FakePeer.instances[0]?.closed).toBe(true);

    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.retryInitialMs - 1);
    expect(FakePeer.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakePeer.instances).toHaveLength(2);
    expect(signals.filter((signal) => signal.type === 'rtc_offer')).toHaveLength(2);

    FakePeer.last.fail();
    await vi.advanceTimersByTimeAsync(2 * DRIVE_CHANNEL.retryInitialMs - 1);
    expect(FakePeer.instances).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakePeer.instances).toHaveLength(3);

    FakePeer.last.channel.remoteOpen();
    FakePeer.last.channel.remoteClose();
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.retryInitialMs);
    expect(FakePeer.instances).toHaveLength(4);
  });

  it('gives up an offer that is not open within openTimeoutMs, and offers again', async () => {
    const channel = driveChannel();
    channel.start();
    await settle();
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.openTimeoutMs - 1);
    expect(FakePeer.last.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakePeer.last.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.retryInitialMs);
    expect(FakePeer.instances).toHaveLength(2);
    expect(channel.isOpen).toBe(false);
  });

  it('stops with the socket: the peer closes and no offer follows', async () => {
    const { channel } = await opened();
    socketOpen = false;
    channel.stop();
    expect(FakePeer.last.closed).toBe(true);
    expect(channel.isOpen).toBe(false);
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.retryMaxMs);
    expect(FakePeer.instances).toHaveLength(1);
  });

  it('offers no more once the server says it has no drive channel, until the next start', async () => {
    const channel = driveChannel();
    channel.start();
    await settle();
    const before = changes;
    channel.serverOff();
    expect(FakePeer.last.closed).toBe(true);
    expect(changes).toBe(before + 1);
    expect(channel.send(drive(1))).toBe(false);
    // Neither the open timeout nor a retry offers again.
    await vi.advanceTimersByTimeAsync(DRIVE_CHANNEL.openTimeoutMs + DRIVE_CHANNEL.retryMaxMs);
    expect(FakePeer.instances).toHaveLength(1);
    expect(signals.filter((signal) => signal.type === 'rtc_offer')).toHaveLength(1);
    // A new connection asks again: the server may have been restarted with the channel on.
    channel.stop();
    channel.start();
    await settle();
    expect(FakePeer.instances).toHaveLength(2);
  });

  it('does nothing in a browser without RTCPeerConnection', async () => {
    const channel = driveChannel(null);
    channel.start();
    await settle();
    expect(signals).toEqual([]);
    expect(channel.send(drive(1))).toBe(false);
  });
});
