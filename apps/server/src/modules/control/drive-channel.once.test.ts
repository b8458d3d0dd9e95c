/**
 * The drive channel (issue 27) over a real control socket, with a real WebRTC peer (werift) that
 * offers as the web page does, its host candidates hidden behind mDNS names as Chromium hides
 * them: drives on the DataChannel reach the car and are acknowledged there; both paths share one
 * sequence; what the channel carries is checked like the socket's messages; the peer closes with
 * the socket; offers are limited. Deployed: the public address behind 1:1 NAT is announced, the
 * ports are taken from the range, and DRIVE_CHANNEL=off refuses offers while the socket drives.
 * The database plays no part past the socket's admission, which
 * control.test.ts covers on both databases: this file runs once, on PGlite.
 */
import { DRIVE_CHANNEL, ERROR_KEYS } from '@telerace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { DriveChannelClient, SAMPLE_DRIVE_OFFER } from '../../test/drive-channel-client.js';
import { driveCar, type TestSocket, useListeningTestApp } from '../../test/sockets.js';

const clock = new ManualClock();
const testApp = useListeningTestApp({}, { clock });
const clients: DriveChannelClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** A car online, a driver holding it with an open control socket, and its drive channel open. */
async function drivingOverChannel() {
  const { car, controller } = await driveCar(testApp.app, testApp.host);
  await controller.nextOfType('car-status');
  const channel = await DriveChannelClient.open(controller.ws);
  clients.push(channel);
  return { car, controller, channel };
}

const driveOf = (throttle: number) => (m: Record<string, unknown>) =>
  m.type === 'drive' && m.throttle === throttle;

/** The drives the car heard, as throttle values, from index `from` of its messages. */
const throttlesFrom = (car: TestSocket, from: number) =>
  car.messages.slice(from).flatMap((m) => (m.type === 'drive' ? [m.throttle] : []));

describe('the drive channel', () => {
  it('carries drives to the car, each acknowledged on the channel, none on the socket', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    console.info(`drive channel open in ${channel.openMs.toFixed(0)} ms (offer → open, loopback)`);
    expect(channel.channel.ordered).toBe(false);
    expect(channel.channel.maxRetransmits).toBe(0);

    const sentAt = performance.now();
    channel.drive(0.5, -0.25, 1);
    expect(await car.next(driveOf(0.5))).toMatchObject({ throttle: 0.5, steer: -0.25 });
    const reachedIn = performance.now() - sentAt;
    await channel.acked(1);
    console.info(`drive channel → car: ${reachedIn.toFixed(1)} ms`);
    expect(controller.messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('applies a drive only when its number is above the last one applied, on either path', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    channel.drive(0.3, 0, 5);
    await car.next(driveOf(0.3));
    const from = car.messages.length;
    // A late packet on the socket, then one on the channel: both older than what was applied.
    controller.send({ type: 'drive', throttle: -0.3, steer: 0, seq: 4 });
    channel.drive(-0.4, 0, 5);
    await channel.acked(5);
    // The socket is ordered: once its next drive reaches the car, the late one never will.
    controller.send({ type: 'drive', throttle: 0.7, steer: 0, seq: 6 });
    await car.next(driveOf(0.7));
    channel.drive(-0.5, 0, 6);
    controller.send({ type: 'drive', throttle: 0.8, steer: 0, seq: 7 });
    await car.next(driveOf(0.8));
    // Heard anyway (the channel works), not applied.
    await channel.acked(6);
    // A page from before the numbering: its drive is always applied.
    controller.send({ type: 'drive', throttle: 0.1, steer: 0 });
    await car.next(driveOf(0.1));
    expect(throttlesFrom(car, from).filter((throttle) => Number(throttle) < 0)).toEqual([]);
  });

  it('refuses what the channel carries like the socket does: the same errors, on the socket, and counted', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    const dropped = { ...testApp.app.carRelay.dropped.controller };
    const from = car.messages.length;
    channel.send({ type: 'drive', throttle: 5, steer: 0, seq: 1 });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    channel.send('not json');
    expect(await controller.nextOfType('error')).toMatchObject({ error: 'Not JSON' });
    // The channel carries drives only (and every drive has its number).
    channel.send({ type: 'controller-ping', timestamp: 1 });
    expect(await controller.nextOfType('error')).toMatchObject({ error: 'Unknown message type' });
    channel.send({ type: 'drive', throttle: 0.2, steer: 0 });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    const now = testApp.app.carRelay.dropped.controller;
    expect(now.invalidMessage - dropped.invalidMessage).toBe(2);
    expect(now.invalidJson - dropped.invalidJson).toBe(1);
    expect(now.unknownType - dropped.unknownType).toBe(1);
    expect(channel.acks).toEqual([]);
    // Nothing reached the car; a valid drive still does.
    channel.drive(0.6, 0, 2);
    await car.next(driveOf(0.6));
    expect(throttlesFrom(car, from)).toEqual([0.6]);
  });

  it('closes with the control socket: the car stops, the peer is gone', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    channel.drive(0.9, 0, 1);
    await car.next(driveOf(0.9));
    const closedAt = performance.now();
    await controller.close();
    await car.nextOfType('stop');
    await channel.closed;
    console.info(
      `control socket closed → drive channel closed: ${(performance.now() - closedAt).toFixed(0)} ms`,
    );
  });

  it('keeps driving over the socket once the channel closes', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    channel.drive(0.4, 0, 1);
    await car.next(driveOf(0.4));
    await channel.close();
    controller.send({ type: 'drive', throttle: 0.45, steer: 0, seq: 2 });
    await car.next(driveOf(0.45));
    // The socket's close, not the channel's, ends driving: nothing stopped the car meanwhile.
    expect(car.messages.filter((m) => m.type === 'stop')).toEqual([]);
  });

  it('limits offers: one peer per socket, at most one per minOfferIntervalMs, a DataChannel only', async () => {
    const { car, controller, channel } = await drivingOverChannel();
    controller.send({
      type: 'rtc_offer',
      sdp: 'v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n',
    });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.driveChannelBusy });
    clock.advance(DRIVE_CHANNEL.minOfferIntervalMs);
    controller.send({ type: 'rtc_offer', sdp: 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.validation });
    clock.advance(DRIVE_CHANNEL.minOfferIntervalMs);
    // A new offer replaces the socket's peer: the first channel closes, the new one drives.
    const second = await DriveChannelClient.open(controller.ws);
    clients.push(second);
    await channel.closed;
    second.drive(0.35, 0, 1);
    await car.next(driveOf(0.35));
  });
});

/** The candidates of an SDP (the server's answer carries all of its own). */
const candidatesOf = (sdp: unknown) =>
  String(sdp)
    .split('\r\n')
    .filter((line) => line.startsWith('a=candidate:'))
    .map((line) => {
      const [, , , , address, port] = line.split(' ');
      return { address, port: Number(port) };
    });

describe('the drive channel deployed behind 1:1 NAT, on a range of UDP ports', () => {
  // Documentation addresses (RFC 5737): nothing answers there. Ports below Linux's ephemeral range.
  const PUBLIC_IP = '203.0.113.7';
  const PORTS = { min: 21_000, max: 21_019 };
  const deployed = useListeningTestApp(
    { DRIVE_CHANNEL_PUBLIC_IP: PUBLIC_IP, DRIVE_CHANNEL_UDP_PORTS: `${PORTS.min}-${PORTS.max}` },
    { clock: new ManualClock() },
  );

  it('answers with the public address as one more host candidate', async () => {
    const { controller } = await driveCar(deployed.app, deployed.host);
    controller.send({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER });
    const candidates = candidatesOf((await controller.nextOfType('rtc_answer', 10_000)).sdp);
    expect(candidates).toContainEqual({ address: PUBLIC_IP, port: expect.any(Number) });
    // Beside the interfaces' own, which browsers on the same network reach.
    expect(candidates.filter(({ address }) => address !== PUBLIC_IP)).not.toEqual([]);
  });

  it('takes its ports in the range, and drives through them', async () => {
    const { car, controller } = await driveCar(deployed.app, deployed.host);
    await controller.nextOfType('car-status');
    const channel = await DriveChannelClient.open(controller.ws);
    clients.push(channel);
    const ports = candidatesOf(channel.peer.remoteDescription?.sdp).map(({ port }) => port);
    expect(ports.length).toBeGreaterThanOrEqual(2);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(PORTS.min);
      expect(port).toBeLessThanOrEqual(PORTS.max);
    }
    channel.drive(0.5, 0, 1);
    await car.next(driveOf(0.5));
    await channel.acked(1);
  });
});

describe('the drive channel turned off (DRIVE_CHANNEL=off)', () => {
  const off = useListeningTestApp({ DRIVE_CHANNEL: 'off' }, { clock: new ManualClock() });

  it('refuses every offer with errors.driveChannelOff and opens nothing; drives go over the socket', async () => {
    const { car, controller } = await driveCar(off.app, off.host);
    await controller.nextOfType('car-status');
    const opening = DriveChannelClient.open(controller.ws, { timeoutMs: 1_500 });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.driveChannelOff });
    await expect(opening).rejects.toThrow(/not open/);
    // Refused before the limits: another offer at once gets the same answer, not tooManyRequests.
    controller.send({ type: 'rtc_offer', sdp: SAMPLE_DRIVE_OFFER });
    expect(await controller.nextOfType('error')).toMatchObject({ errorKey: ERROR_KEYS.driveChannelOff });
    controller.send({ type: 'drive', throttle: 0.4, steer: 0, seq: 1 });
    await car.next(driveOf(0.4));
    expect(controller.messages.filter((m) => m.type === 'rtc_answer')).toEqual([]);
  });
});
