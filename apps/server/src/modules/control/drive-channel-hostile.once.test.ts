/**
 * A hostile member against the drive channel (issue 39): the server must not become a UDP cannon.
 * Listeners on loopback count what reaches them while a member who holds a car writes candidates
 * into the offer's SDP and trickles them, aims them at private, loopback and privileged
 * destinations and at names, sends RFC-breaking credentials, cycles control sockets and leaves
 * them unread. The server allows 127.0.0.2 as an operator allows a LAN (DRIVE_CHANNEL_ALLOWED_NETWORKS),
 * so a listener there proves that checks do go out when the policy allows them — and that the
 * others would have heard theirs.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { Socket as NetSocket } from 'node:net';
import { DRIVE_CHANNEL, ERROR_KEYS } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { SAMPLE_DRIVE_OFFER } from '../../test/drive-channel-client.js';
import {
  controllerUrl,
  driveCar,
  openSocket,
  originOf,
  type TestSocket,
  useListeningTestApp,
} from '../../test/sockets.js';
import { driveChannelThread } from './drive-channel-thread.js';

const ALLOWED = '127.0.0.2';
const FORBIDDEN = '127.0.0.3';
const clock = new ManualClock();
// The keepalive's clock stands still: no socket is dropped for its silence, so a peer that closes
// does so because its socket was closed, not because a silent client was let go.
const testApp = useListeningTestApp(
  { DRIVE_CHANNEL_ALLOWED_NETWORKS: `${ALLOWED}/32` },
  { clock, keepaliveClock: new ManualClock() },
);

/** UDP listeners at the given destinations, keeping the STUN binding requests each one hears. */
class Listeners {
  readonly #heard = new Map<string, Buffer[]>();
  readonly #sockets: Socket[] = [];

  static async at(destinations: readonly (readonly [string, number])[]): Promise<Listeners> {
    const listeners = new Listeners();
    await Promise.all(destinations.map(([address, port]) => listeners.#bind(address, port)));
    return listeners;
  }

  async #bind(address: string, port: number): Promise<void> {
    const socket = createSocket('udp4');
    const key = `${address}:${port}`;
    this.#heard.set(key, []);
    socket.on('message', (packet) => this.#heard.get(key)?.push(packet));
    this.#sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, resolve);
    });
  }

  heard(address: string, port: number): Buffer[] {
    return this.#heard.get(`${address}:${port}`) ?? [];
  }

  /** The destinations that heard anything, and how much. */
  reached(): Record<string, number> {
    return Object.fromEntries(
      [...this.#heard].filter(([, packets]) => packets.length > 0).map(([k, p]) => [k, p.length]),
    );
  }

  close(): void {
    for (const socket of this.#sockets) socket.close();
  }
}

const open: Listeners[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const listeners of open.splice(0)) listeners.close();
  for (const socket of sockets.splice(0)) socket.ws.terminate();
});

async function listening(destinations: readonly (readonly [string, number])[]) {
  const listeners = await Listeners.at(destinations);
  open.push(listeners);
  return listeners;
}

const candidate = (index: number, priority: number, address: string, port: number) =>
  `candidate:${index} 1 udp ${priority} ${address} ${port} typ host`;

/** The sample offer with these candidates written into its SDP, as an attacker would. */
const offerWith = (candidates: readonly string[], sample = SAMPLE_DRIVE_OFFER) =>
  `${sample.trimEnd()}\r\n${candidates.map((line) => `a=${line}`).join('\r\n')}\r\n`;

const trickle = (socket: TestSocket, line: string) =>
  socket.send({ type: 'rtc_candidate', candidate: line, sdpMid: '0', sdpMLineIndex: 0 });

/** A STUN binding request (RFC 5389: type 0x0001, the magic cookie), as werift's checks are. */
const isBindingRequest = (packet: Buffer) =>
  packet.readUInt16BE(0) === 0x0001 && packet.readUInt32BE(4) === 0x2112a442;

/** The USERNAME attribute of a STUN message. */
function usernameOf(packet: Buffer): string | null {
  for (let at = 20; at + 4 <= packet.length; ) {
    const type = packet.readUInt16BE(at);
    const length = packet.readUInt16BE(at + 2);
    if (type === 0x0006) return packet.subarray(at + 4, at + 4 + length).toString();
    at += 4 + Math.ceil(length / 4) * 4;
  }
  return null;
}

async function holdingACar() {
  const { controller, taken, driving } = await driveCar(testApp.app, testApp.host);
  sockets.push(controller);
  await controller.nextOfType('car-status');
  return { controller, taken, driving };
}

const counters = () => structuredClone(driveChannelThread.counters.candidates);

describe('the drive channel against a hostile member', () => {
  it('sends no check to what the SDP or the trickle names outside the policy, only to what it allows', async () => {
    const privileged = [53, 123, 161, 514];
    const inSdp = Array.from({ length: 8 }, (_, i) => 45_000 + i);
    const control: [string, number] = [ALLOWED, 45_100];
    const listeners = await listening([
      ...inSdp.map((port) => [FORBIDDEN, port] as const),
      ...privileged.map((port) => [ALLOWED, port] as const),
      [FORBIDDEN, 11_211],
      control,
    ]);
    const { controller } = await holdingACar();
    const before = counters();
    // Every hostile candidate outranks the allowed one, so werift would check each before it.
    controller.send({
      type: 'rtc_offer',
      sdp: offerWith([
        ...inSdp.map((port, i) => candidate(i, 2_000_000 + i, FORBIDDEN, port)),
        candidate(20, 3_000_000, ALLOWED, 53),
      ]),
    });
    await controller.nextOfType('rtc_answer', 10_000);
    for (const [i, port] of privileged.slice(1).entries())
      trickle(controller, candidate(30 + i, 3_000_000, ALLOWED, port));
    trickle(controller, candidate(40, 3_000_000, FORBIDDEN, 11_211));
    trickle(controller, `candidate:41 1 udp 3000000 x.local.example 45200 typ host`);
    trickle(
      controller,
      `candidate:42 1 udp 3000000 0b5e1f5c-7d1a-4c6e-9a1b-2f0e6d7c8a9b.local 45201 typ host`,
    );
    trickle(controller, candidate(43, 1, ...control));

    await expect.poll(() => listeners.heard(...control).length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(listeners.heard(...control).every(isBindingRequest)).toBe(true);
    expect(listeners.reached()).toEqual({ [control.join(':')]: expect.any(Number) });
    const after = counters();
    expect(after.taken - before.taken).toBe(1);
    expect(after.ignored - before.ignored).toBe(1);
    expect(after.refused.special_purpose - before.refused.special_purpose).toBe(inSdp.length + 1);
    expect(after.refused.port - before.refused.port).toBe(privileged.length);
    expect(after.refused.name - before.refused.name).toBe(1);
  });

  it(`checks at most ${DRIVE_CHANNEL.maxCandidates} destinations per offer, those in the SDP and trickled ones together`, async () => {
    const ports = Array.from({ length: 66 }, (_, i) => 46_000 + i);
    const listeners = await listening(ports.map((port) => [ALLOWED, port] as const));
    const { controller } = await holdingACar();
    // The first candidate ranks lowest: once it is checked, every pair werift has was.
    const lines = ports.map((port, i) => candidate(i, 1_000 + i, ALLOWED, port));
    controller.send({ type: 'rtc_offer', sdp: offerWith(lines.slice(0, 40)) });
    await controller.nextOfType('rtc_answer', 10_000);
    for (const line of lines.slice(40)) trickle(controller, line);
    await expect
      .poll(() => listeners.heard(ALLOWED, ports[0] ?? 0).length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const reached = Object.keys(listeners.reached());
    expect(reached.sort()).toEqual(
      ports.slice(0, DRIVE_CHANNEL.maxCandidates).map((port) => `${ALLOWED}:${port}`),
    );
    const packets = Object.values(listeners.reached()).reduce((sum, count) => sum + count, 0);
    console.info(
      `one offer of 66 candidates (${offerWith(lines.slice(0, 40)).length} characters of SDP + 26 trickled): ${reached.length} destinations, ${packets} packets so far`,
    );
  });

  it('refuses ICE credentials outside RFC 8839, and the checks carry only the credentials it took', async () => {
    const control: [string, number] = [ALLOWED, 45_300];
    const listeners = await listening([control]);
    const { controller } = await holdingACar();
    const line = `<13>Dec  7 03:00:00 server sshd[1]: Accepted password for root from ${'x'.repeat(1_300)}`;
    const withCandidate = offerWith([candidate(1, 1, ...control)]);
    controller.send({
      type: 'rtc_offer',
      sdp: withCandidate.replace(/a=ice-ufrag:\S+/, `a=ice-ufrag:${line}`),
    });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    clock.advance(DRIVE_CHANNEL.minOfferIntervalMs);
    controller.send({
      type: 'rtc_offer',
      sdp: withCandidate.replace(/a=ice-ufrag:\S+/, `a=ice-ufrag:${'a'.repeat(1_400)}`),
    });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    expect(controller.messages.filter((m) => m.type === 'rtc_answer')).toEqual([]);

    clock.advance(DRIVE_CHANNEL.minOfferIntervalMs);
    controller.send({ type: 'rtc_offer', sdp: withCandidate });
    await controller.nextOfType('rtc_answer', 10_000);
    await expect.poll(() => listeners.heard(...control).length, { timeout: 10_000 }).toBeGreaterThan(0);
    for (const packet of listeners.heard(...control))
      expect(usernameOf(packet)).toMatch(/^tEle:[A-Za-z0-9+/]+$/);
  });

  it('counts offers per member: reconnecting the control socket buys no new budget', async () => {
    const { controller, taken, driving } = await holdingACar();
    await controller.close();
    const url = controllerUrl(testApp.host, driving.carId, taken.accessToken, taken.controlToken);
    const replies: string[] = [];
    for (let i = 0; i < DRIVE_CHANNEL.offersPerMinute + 3; i += 1) {
      const socket = await openSocket(url, originOf(testApp.app));
      sockets.push(socket);
      socket.send({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER });
      const reply = await socket.next((m) => m.type === 'rtc_answer' || m.type === 'error', 10_000);
      replies.push(reply.type === 'error' ? String(reply.errorKey) : String(reply.type));
      await socket.close();
    }
    expect(replies).toEqual([
      ...Array.from({ length: DRIVE_CHANNEL.offersPerMinute }, () => 'rtc_answer'),
      ...Array.from({ length: 3 }, () => ERROR_KEYS.driveChannelBusy),
    ]);
    // Another member still has their own.
    const other = await holdingACar();
    other.controller.send({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER });
    await other.controller.nextOfType('rtc_answer', 10_000);
  });

  it("closes a replaced socket's peer at once, even when its client never reads the close", async () => {
    const { controller, taken, driving } = await holdingACar();
    await expect.poll(() => driveChannelThread.openPeers, { timeout: 5_000 }).toBe(0);
    controller.send({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER });
    await controller.nextOfType('rtc_answer', 10_000);
    await expect.poll(() => driveChannelThread.openPeers).toBe(1);
    // The old client stops reading: the server's close handshake would wait 30 s for it.
    (controller.ws as unknown as { _socket: NetSocket })._socket.pause();
    const replacing = await openSocket(
      controllerUrl(testApp.host, driving.carId, taken.accessToken, taken.controlToken),
      originOf(testApp.app),
    );
    sockets.push(replacing);
    // Well before the server's close handshake would give up on the silent client (30 s).
    await expect.poll(() => driveChannelThread.openPeers, { timeout: 5_000 }).toBe(0);
  });
});
